package dev.paddock.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on loopback between a paired daemon and the server: {@link #cut()} drops every connection through
 * it at once, as a network failure would (the daemon's next connect goes through again).
 */
final class LoopbackRelayProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    LoopbackRelayProxy(int targetPort) throws IOException {
        this.target = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    int port() { return listener.getLocalPort(); }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket in = listener.accept();
                Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                open.add(in);
                open.add(out);
                Thread.ofVirtual().start(() -> pump(in, out));
                Thread.ofVirtual().start(() -> pump(out, in));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // cut
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Drops every connection through the proxy (both directions, without a WebSocket close). */
    void cut() {
        for (Socket s : open) closeQuietly(s);
        open.clear();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        cut();
    }
}
