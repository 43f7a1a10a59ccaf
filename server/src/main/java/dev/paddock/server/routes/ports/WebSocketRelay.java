package dev.paddock.server.routes.ports;

import dev.paddock.core.Text;
import dev.paddock.core.spi.ExecHandle;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.nio.charset.StandardCharsets;

/**
 * One browser WebSocket relayed, message by message, to a WebSocket server on a forwarded port: the handshake
 * inside first, then the server's messages to the browser (on this relay's thread) and the browser's to the
 * server (on Jetty's). Either side closing closes the other; the relay into the sandbox is killed at the end.
 */
final class WebSocketRelay {
    interface Peer {
        void send(int opcode, byte[] payload) throws Exception;

        void close(int code, String reason);
    }

    private final WebSocketClient upstream;
    private final ExecHandle relay;
    private final RelayStream in;
    private final Peer browser;
    private volatile boolean closed;
    /** The browser's messages wait for the handshake inside: before it, they would be read as the request. */
    private final CountDownLatch ready = new CountDownLatch(1);

    WebSocketRelay(WebSocketClient upstream, ExecHandle relay, RelayStream in, Peer browser) {
        this.upstream = upstream;
        this.relay = relay;
        this.in = in;
        this.browser = browser;
    }

    void run(String target, int port) {
        try {
            upstream.handshake(target, port, null);
            ready.countDown();
            in.timeout(Duration.ofDays(1)); // idle WebSockets are ended by Jetty's idle timeout
            for (WebSocketClient.Message m; !closed && (m = upstream.read()) != null; ) {
                switch (m.opcode()) {
                    case WebSocketClient.TEXT, WebSocketClient.BINARY -> browser.send(m.opcode(), m.payload());
                    case WebSocketClient.PING -> upstream.send(WebSocketClient.PONG, m.payload());
                    case WebSocketClient.CLOSE -> {
                        int code = m.payload().length >= 2 ? ByteBuffer.wrap(m.payload()).getShort() & 0xffff : 1000;
                        String reason = m.payload().length > 2 ? new String(m.payload(), 2, m.payload().length - 2, StandardCharsets.UTF_8) : "";
                        browser.close(code >= 1000 && code < 5000 && code != 1005 && code != 1006 ? code : 1000, Text.clip(reason, 120));
                        return;
                    }
                    default -> { }
                }
            }
            browser.close(1000, "the server inside the sandbox closed the connection");
        } catch (Exception e) {
            browser.close(1011, Text.clip(String.valueOf(e.getMessage()), 120));
        } finally {
            close();
        }
    }

    void forward(int opcode, byte[] payload) {
        try {
            if (!ready.await(HttpPortProxy.HEAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || closed) return;
            upstream.send(opcode, payload);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            browser.close(1011, "the connection into the sandbox ended");
            close();
        }
    }

    void close() {
        if (closed) return;
        closed = true;
        ready.countDown();
        try {
            upstream.send(WebSocketClient.CLOSE, new byte[] {0x03, (byte) 0xe8});
        } catch (IOException ignored) {
            // the relay is gone already
        }
        relay.kill();
        in.close();
    }
}
