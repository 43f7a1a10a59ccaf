package dev.paddock.driver.browservm;

import dev.paddock.core.Ids;
import dev.paddock.core.Text;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tab's WebSocket, seen from the server: sends ops, matches results to waiting calls, answers every broken
 * frame with an error frame (and logs it) instead of failing, and fails every waiting call when the socket goes.
 * A tab that keeps sending garbage is cut off after {@link #MAX_BAD_FRAMES}.
 */
public final class RelayConnection {
    private static final Logger log = LoggerFactory.getLogger(RelayConnection.class);
    static final int MAX_BAD_FRAMES = 50;

    private final BrowserVm owner;
    private final BrowserRuntime runtime;
    private final RelayPeer peer;
    private final Clock clock;
    private final Map<String, PendingCall> pending = new ConcurrentHashMap<>();
    private final AtomicInteger badFrames = new AtomicInteger();
    private volatile Instant lastSeen;
    private volatile boolean closed;
    /** Why the socket went, for the sandbox's record: the tab closed it unless the server did. */
    private volatile String why = "tab_closed";

    RelayConnection(BrowserVm owner, BrowserRuntime runtime, RelayPeer peer, Clock clock) {
        this.owner = owner;
        this.runtime = runtime;
        this.peer = peer;
        this.clock = clock;
        this.lastSeen = clock.instant();
    }

    public BrowserRuntime runtime() { return runtime; }

    Instant lastSeen() { return lastSeen; }

    /** Handles one text frame from the tab. Never throws. */
    public void onText(String text) {
        lastSeen = clock.instant();
        runtime.heartbeat(lastSeen);
        try {
            switch (Frames.parse(text)) {
                case Frames.Hello h -> {
                    requireKind(h);
                    runtime.hello(h);
                    owner.helloFrom(runtime, h);
                }
                case Frames.Heartbeat hb -> { }
                case Frames.Chunk c -> call(c.requestId()).chunk(c);
                case Frames.Result r -> result(r);
            }
        } catch (FrameException e) {
            int bad = badFrames.incrementAndGet();
            log.warn("runtime {} sent a bad frame ({}): {}", runtime.id(), e.code(), Text.clip(e.getMessage(), 200));
            PendingCall p = e.requestId() == null ? null : pending.remove(e.requestId());
            if (p != null) p.future.completeExceptionally(TabErrors.fromTab(e.code(), e.getMessage()));
            send(Frames.error(e.code(), e.getMessage(), e.requestId()));
            if (bad >= MAX_BAD_FRAMES) close(4400, "too many malformed frames");
        } catch (RuntimeException e) {
            // a bug on our side must not take the socket or the server down with it
            log.error("relay frame of runtime {} could not be handled", runtime.id(), e);
            send(Frames.error("internal", "the server could not handle this frame", null));
        }
    }

    /**
     * A hello must say what the runtime was paired as: a daemon names the daemon engine, its host, driver and
     * capacity and no tab fields; a tab names none of the daemon's (a tab cannot pass itself off as a daemon).
     */
    private void requireKind(Frames.Hello h) throws FrameException {
        boolean daemonFields = h.host() != null || h.driver() != null || h.capacity() != null;
        if (runtime.daemon()) {
            if (!Frames.DAEMON_ENGINE.equals(h.engine()) || h.host() == null || h.driver() == null || h.capacity() == null
                    || h.sandboxId() != null || !h.mirrors().isEmpty() || h.bootMode() != null || h.bootMillis() != null) {
                throw new FrameException("malformed_frame", "a paired daemon's hello names engine daemon, host, driver and capacity, and no tab fields", null);
            }
        } else if (daemonFields || Frames.DAEMON_ENGINE.equals(h.engine())) {
            throw new FrameException("malformed_frame", "this runtime was paired as a sandbox tab; a hello with daemon fields is refused", null);
        }
    }

    private PendingCall call(String requestId) throws FrameException {
        PendingCall p = pending.get(requestId);
        if (p == null) throw new FrameException("unknown_request", "no op with this request_id is waiting", null);
        return p;
    }

    private void result(Frames.Result r) throws FrameException {
        PendingCall p = call(r.requestId());
        if (!r.ok()) {
            pending.remove(r.requestId());
            p.future.completeExceptionally(TabErrors.fromTab(r.errorCode(), r.errorMessage()));
            return;
        }
        Reply reply = p.finish(r);
        pending.remove(r.requestId());
        p.future.complete(reply);
    }

    /** Registers a call and sends its data chunks and op frame; the future fails at once if the socket is gone. */
    PendingCall start(String sandboxId, String op, Map<String, Object> args, byte[] data, long timeoutSeconds, long maxReplyBytes) {
        String rid = Ids.newId("req");
        PendingCall p = new PendingCall(rid, sandboxId, maxReplyBytes);
        pending.put(rid, p);
        if (closed) {
            p.undelivered = true;
            fail(p);
            return p;
        }
        try {
            int seq = 0;
            if (data != null) {
                for (int off = 0; off < data.length; off += Frames.CHUNK_BYTES) {
                    peer.send(Frames.opChunk(rid, seq++, data, off, Math.min(Frames.CHUNK_BYTES, data.length - off)));
                }
            }
            Map<String, Object> withChunks = new LinkedHashMap<>(args);
            if (data != null) withChunks.put("chunks", seq);
            peer.send(Frames.op(rid, sandboxId, op, withChunks, timeoutSeconds));
        } catch (Exception e) {
            log.debug("sending {} to runtime {} failed: {}", op, runtime.id(), e.toString());
            p.undelivered = true;
            fail(p);
        }
        return p;
    }

    /** Fire-and-forget op (kill): no answer is awaited. */
    void tell(String sandboxId, String op, Map<String, Object> args) {
        send(Frames.op(Ids.newId("req"), sandboxId, op, args, 5));
    }

    void forget(PendingCall p) {
        pending.remove(p.requestId);
    }

    void heartbeat() {
        send(Frames.heartbeat());
    }

    void welcome(long heartbeatSeconds) {
        send(Frames.welcome(runtime.id(), heartbeatSeconds));
    }

    private void send(String frame) {
        try {
            peer.send(frame);
        } catch (Exception e) {
            log.debug("send to runtime {} failed: {}", runtime.id(), e.toString());
        }
    }

    /** The socket died under a send (a dropped network path not yet noticed): closed, so the runtime may reconnect. */
    void lost() {
        why = "connection_lost";
        try {
            peer.close(1011, "send failed");
        } finally {
            onClosed();
        }
    }

    public void close(int code, String reason) {
        why = switch (code) {
            case 4408 -> "heartbeat_timeout";
            case 4403 -> "runtime_revoked";
            case 4410 -> "sandbox_moved";
            case 4400 -> "malformed_frames";
            case 4409 -> "replaced";
            default -> "server_closed";
        };
        try {
            peer.close(code, reason);
        } finally {
            onClosed();
        }
    }

    /** The socket is gone: the runtime goes offline and every waiting call fails with "reopen your sandbox tab". */
    public void onClosed() {
        if (closed) return;
        closed = true;
        runtime.detach(this);
        for (PendingCall p : pending.values()) fail(p);
        pending.clear();
        owner.closed(runtime, runtime.daemon() && why.equals("tab_closed") ? "daemon_closed" : why);
    }

    private void fail(PendingCall p) {
        pending.remove(p.requestId);
        p.future.completeExceptionally(TabErrors.gone(runtime, p.sandboxId));
    }

    boolean closed() { return closed; }
}
