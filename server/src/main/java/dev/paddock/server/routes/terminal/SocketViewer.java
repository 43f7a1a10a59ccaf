package dev.paddock.server.routes.terminal;

import dev.paddock.host.terminal.TerminalViewer;
import dev.paddock.server.http.ApiJson;
import io.javalin.websocket.WsContext;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jetty.websocket.api.Callback;

/** A terminal's client on a WebSocket: output as binary frames, events as JSON text frames, one write at a time. */
final class SocketViewer implements TerminalViewer {
    private final WsContext ctx;
    private final ApiJson json;

    SocketViewer(WsContext ctx, ApiJson json) {
        this.ctx = ctx;
        this.json = json;
    }

    @Override
    public void output(byte[] data) {
        send(null, data);
    }

    @Override
    public void exited(Integer exitCode) {
        Map<String, Object> m = new HashMap<>();
        m.put("type", "exit");
        m.put("exit_code", exitCode);
        control(m);
        close(1000, "the terminal's command ended");
    }

    @Override
    public void replaced() {
        control(Map.of("type", "replaced"));
        close(4409, "another client attached to this terminal");
    }

    void control(Map<String, ?> message) {
        send(new String(json.write(message), StandardCharsets.UTF_8), null);
    }

    /** Blocks until the frame is written (so a slow client slows the terminal's output down); a closed socket drops it. */
    private synchronized void send(String text, byte[] binary) {
        if (!ctx.session.isOpen()) return;
        Callback.Completable done = new Callback.Completable();
        if (text != null) ctx.session.sendText(text, done);
        else ctx.session.sendBinary(ByteBuffer.wrap(binary), done);
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // the client went away; the session keeps the output from here on once the close arrives
        }
    }

    private void close(int code, String reason) {
        try {
            ctx.closeSession(code, reason);
        } catch (RuntimeException ignored) {
            // already closed
        }
    }
}
