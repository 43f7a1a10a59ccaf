package dev.paddock.app;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.function.Consumer;

/**
 * A loopback TCP server that hands every connection to {@code serve} on a virtual thread of its own: an API server
 * that answers as a test scripts it (broken, hostile or stalled), for the CLI to meet.
 */
final class ScriptedSocketServer implements AutoCloseable {
    private final ServerSocket server;

    ScriptedSocketServer(Consumer<Socket> serve) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread.ofVirtual().start(() -> serve.accept(s));
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
