package dev.paddock.driver.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** A TCP listener on the host's loopback that accepts and closes connections: what a sandbox must not reach. */
final class LoopbackServer implements AutoCloseable {
    private final ServerSocket socket;

    LoopbackServer() {
        try {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofVirtual().start(() -> {
            while (!socket.isClosed()) {
                try (Socket s = socket.accept()) {
                    // accepted: that is all a probe needs
                } catch (IOException closed) {
                    return;
                }
            }
        });
    }

    int port() {
        return socket.getLocalPort();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
