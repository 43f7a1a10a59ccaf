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
 * A TCP forwarder on loopback in front of a real service (PostgreSQL, a Paddock server), to fail the network
 * between it and its client and mend it: {@link #cut()} drops every connection at once (new ones go through),
 * {@link #stop()} is a service that went down (every connection reset, new ones refused), {@link #hang()} one that
 * stops answering without a word (connections stay open, nothing passes, new ones are accepted and left waiting),
 * {@link #open()} brings it back for new connections.
 */
final class LoopbackGate implements AutoCloseable {
    enum Mode { OPEN, STOPPED, HUNG }

    private final ServerSocket listener;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile Mode mode = Mode.OPEN;

    LoopbackGate(int targetPort) throws IOException {
        this.target = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    int port() { return listener.getLocalPort(); }

    void cut() {
        closeAll();
    }

    void stop() {
        mode = Mode.STOPPED;
        closeAll();
    }

    void hang() {
        mode = Mode.HUNG;
    }

    void open() {
        if (mode == Mode.HUNG) closeAll(); // what waited in the hang ends now, as when a partition heals with resets
        mode = Mode.OPEN;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket in = listener.accept();
                sockets.add(in);
                switch (mode) {
                    case STOPPED -> in.close();
                    case HUNG -> { } // accepted, never answered
                    case OPEN -> {
                        Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                        sockets.add(out);
                        Thread.ofVirtual().start(() -> pump(in, out));
                        Thread.ofVirtual().start(() -> pump(out, in));
                    }
                }
            } catch (IOException e) {
                if (listener.isClosed()) return;
            }
        }
    }

    /** Copies bytes while the gate is open; while it hangs, holds them back (nothing passes either way). */
    private void pump(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            byte[] buf = new byte[16 * 1024];
            for (int n; (n = in.read(buf)) > 0; ) {
                while (mode == Mode.HUNG) Thread.sleep(50);
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // cut
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void closeAll() {
        for (Socket s : sockets) closeQuietly(s);
        sockets.clear();
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
        closeAll();
    }
}
