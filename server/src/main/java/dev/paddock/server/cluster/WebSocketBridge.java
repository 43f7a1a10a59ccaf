package dev.paddock.server.cluster;

import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * One client's WebSocket (this node's Jetty session) joined to the same socket on the node that holds the sandbox
 * (the JDK client): every frame passes as it comes, text and binary, fragments kept, and the close code and reason
 * pass both ways. Each side reads its next frame only once the other side has written the last one, so a slow
 * reader slows its writer down instead of filling this node's memory. Public only because Jetty calls its
 * listener methods through method handles.
 */
public final class WebSocketBridge implements Session.Listener, WebSocket.Listener {
    /** As long as the sockets this node serves itself may idle. */
    private static final Duration IDLE = Duration.ofMinutes(30);
    /** The largest frame relayed; the holder applies its own message limits. */
    private static final int MAX_FRAME = 1 << 20;
    /** How long a holder has to answer the client's close before its socket is cut. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(10);

    private final Duration closeGrace;

    private final CompletableFuture<WebSocket> upstream = new CompletableFuture<>();
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile Session client;
    /** The last write to the holder: a close waits for it (the JDK client takes one data write at a time). */
    private volatile CompletableFuture<WebSocket> lastWrite = CompletableFuture.completedFuture(null);

    public WebSocketBridge() {
        this(CLOSE_GRACE);
    }

    WebSocketBridge(Duration closeGrace) {
        this.closeGrace = closeGrace;
    }

    /** The holder's socket, once its handshake succeeded; frames flow once the client's side is open too. */
    void connected(WebSocket holder) {
        upstream.complete(holder);
    }

    // ---- the client's side (Jetty): explicit demand, one frame at a time

    @Override
    public void onWebSocketOpen(Session session) {
        client = session;
        session.setIdleTimeout(IDLE);
        session.setMaxFrameSize(MAX_FRAME);
        session.setMaxTextMessageSize(MAX_FRAME);
        session.setMaxBinaryMessageSize(MAX_FRAME);
        upstream.join().request(1);
        session.demand();
    }

    @Override
    public void onWebSocketPartialText(String payload, boolean last) {
        toHolder(upstream.join().sendText(payload, last), null);
    }

    @Override
    public void onWebSocketPartialBinary(ByteBuffer payload, boolean last, Callback callback) {
        toHolder(upstream.join().sendBinary(payload, last), callback);
    }

    private void toHolder(CompletableFuture<WebSocket> write, Callback done) {
        lastWrite = write;
        write.whenComplete((ws, failure) -> {
            if (done != null) {
                if (failure == null) done.succeed();
                else done.fail(failure);
            }
            if (failure == null) client.demand();
            else endClient(1011, "the node that holds the sandbox stopped reading");
        });
    }

    @Override
    public void onWebSocketPing(ByteBuffer payload) {
        client.sendPong(payload, Callback.NOOP);
        client.demand();
    }

    @Override
    public void onWebSocketPong(ByteBuffer payload) {
        client.demand();
    }

    @Override
    public void onWebSocketClose(int code, String reason) {
        WebSocket holder = upstream.getNow(null);
        if (holder == null) return;
        if (!holder.isOutputClosed()) {
            int sent = clientMaySend(code) ? code : WebSocket.NORMAL_CLOSURE;
            lastWrite.handle((ws, failure) -> holder.sendClose(sent, reason == null ? "" : reason));
        }
        // a holder that stopped reading never finishes the last write nor answers the close: cut it, or its
        // connection would stay open on this node for good
        CompletableFuture.delayedExecutor(closeGrace.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (!holder.isInputClosed()) holder.abort();
        });
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        WebSocket holder = upstream.getNow(null);
        if (holder != null) holder.abort();
    }

    // ---- the holder's side (JDK client): one message part at a time, requested once the client has it

    @Override
    public void onOpen(WebSocket webSocket) {
        // nothing is read until the client's side is open (onWebSocketOpen requests the first part)
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        client.sendPartialText(data.toString(), last, Callback.from(() -> passed(webSocket, written), x -> failed(written, x)));
        return written;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        client.sendPartialBinary(data, last, Callback.from(() -> passed(webSocket, written), x -> failed(written, x)));
        return written;
    }

    private static void passed(WebSocket holder, CompletableFuture<Void> written) {
        written.complete(null);
        holder.request(1);
    }

    private void failed(CompletableFuture<Void> written, Throwable cause) {
        written.complete(null);
        WebSocket holder = upstream.getNow(null);
        if (holder != null) holder.abort();
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int code, String reason) {
        // the holder closed first: the client hears its code; the JDK answers the holder's close once this completes
        CompletableFuture<Void> closed = new CompletableFuture<>();
        if (!ended.compareAndSet(false, true)) return CompletableFuture.completedFuture(null);
        Session s = client;
        if (s == null || !s.isOpen()) return CompletableFuture.completedFuture(null);
        s.close(serverMaySend(code) ? code : code == 1005 ? 1000 : 1011, reason, Callback.from(() -> closed.complete(null), x -> closed.complete(null)));
        return closed;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        endClient(1011, "the node that holds the sandbox went away");
    }

    /** The holder stopped renewing its lease: the client hears 1011 and the holder's connection is cut. */
    void holderLost(String reason) {
        endClient(1011, reason.length() > 120 ? reason.substring(0, 120) : reason);
        WebSocket holder = upstream.getNow(null);
        if (holder != null) holder.abort();
    }

    /** Whether both sides are done with: nothing is left to relay or to end. */
    boolean finished() {
        WebSocket holder = upstream.getNow(null);
        Session s = client;
        boolean holderDone = holder == null || holder.isInputClosed() && holder.isOutputClosed();
        return holderDone && (s == null || ended.get() || !s.isOpen());
    }

    private void endClient(int code, String reason) {
        if (!ended.compareAndSet(false, true)) return;
        Session s = client;
        if (s != null && s.isOpen()) s.close(code, reason, Callback.NOOP);
    }

    /** Codes a client socket may send (the JDK refuses the rest): the holder hears a plain close for those. */
    private static boolean clientMaySend(int code) {
        return code == 1000 || code == 1001 || code == 1008 || code == 1011 || code >= 3000 && code <= 4999;
    }

    /** Codes that may travel in a close frame at all (1005, 1006 and 1015 only describe what happened locally). */
    private static boolean serverMaySend(int code) {
        return code >= 1000 && code <= 4999 && code != 1004 && code != 1005 && code != 1006 && code != 1015 && (code < 1016 || code >= 3000);
    }
}
