package dev.paddock.driver.kubernetes;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The network of one pod whose NetworkPolicy allows a single peer, for the fake kubelet: what a CNI enforcing that
 * policy leaves the pod. A network namespace of its own holds only loopback (made by bwrap, kept by a holder process
 * as a pause container keeps a pod's), where a forwarder (Debian's python3) listens on the address the pod dials for
 * the peer; each connection goes out over a unix socket (paths are not in the network namespace) to this relay, which
 * connects to the peer's real port on the host. Nothing else leaves the namespace. Execs join it with nsenter.
 */
final class PodNetwork implements AutoCloseable {
    private static final String FORWARDER = """
            import socket, sys, threading
            port, path = int(sys.argv[1]), sys.argv[2]
            server = socket.socket()
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(("127.0.0.1", port))
            server.listen(64)
            print("ready", flush=True)
            def pipe(a, b):
                try:
                    while True:
                        data = a.recv(65536)
                        if not data:
                            break
                        b.sendall(data)
                except OSError:
                    pass
                finally:
                    try:
                        b.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
            def serve(c):
                u = socket.socket(socket.AF_UNIX)
                try:
                    u.connect(path)
                except OSError:
                    c.close()
                    return
                back = threading.Thread(target=pipe, args=(u, c), daemon=True)
                back.start()
                pipe(c, u)
                back.join()
                c.close()
                u.close()
            while True:
                c, _ = server.accept()
                threading.Thread(target=serve, args=(c,), daemon=True).start()
            """;

    private final Process holder;
    private final ServerSocketChannel relay;
    private final long namespacePid;
    private final Path socketDir;

    /** The pod dials 127.0.0.1:{@code podPort} and reaches 127.0.0.1:{@code hostPort} of the host, and nothing else. */
    PodNetwork(Path dir, int podPort, int hostPort) {
        try {
            Files.createDirectories(dir);
            Path script = dir.resolve("forwarder.py");
            Files.writeString(script, FORWARDER);
            // a unix socket path has at most 107 bytes: the test's directory is too deep for it
            socketDir = Files.createTempDirectory("k8s-net");
            Path socket = socketDir.resolve("peer.sock");
            relay = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            relay.bind(UnixDomainSocketAddress.of(socket));
            Thread.ofVirtual().start(() -> relay(hostPort));
            holder = new ProcessBuilder("bwrap", "--die-with-parent", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev",
                    "--", "/usr/bin/python3", script.toString(), Integer.toString(podPort), socket.toString())
                    .redirectErrorStream(true).start();
            String ready = new String(holder.getInputStream().readNBytes(6), StandardCharsets.US_ASCII);
            if (!ready.equals("ready\n")) throw new IllegalStateException("the pod's network forwarder did not start: " + ready);
            // bwrap's child is in the new namespace; bwrap itself is not
            namespacePid = holder.toHandle().descendants().reduce((a, b) -> b).orElseThrow().pid();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What an exec in the pod runs under: nsenter into the pod's network namespace. */
    List<String> enter() {
        return List.of("nsenter", "--net=/proc/" + namespacePid + "/ns/net");
    }

    private void relay(int hostPort) {
        while (relay.isOpen()) {
            SocketChannel inside;
            try {
                inside = relay.accept();
            } catch (IOException closed) {
                return;
            }
            Thread.ofVirtual().start(() -> {
                try (inside; Socket out = new Socket(InetAddress.getLoopbackAddress(), hostPort)) {
                    Thread up = Thread.ofVirtual().start(() -> copy(inside, out));
                    InputStream in = out.getInputStream();
                    byte[] chunk = new byte[16 * 1024];
                    int n;
                    while ((n = in.read(chunk)) >= 0) {
                        ByteBuffer b = ByteBuffer.wrap(chunk, 0, n);
                        while (b.hasRemaining()) inside.write(b);
                    }
                    inside.shutdownOutput();
                    up.join();
                } catch (IOException | InterruptedException e) {
                    // either side closed
                }
            });
        }
    }

    private static void copy(SocketChannel from, Socket to) {
        try {
            OutputStream out = to.getOutputStream();
            ByteBuffer b = ByteBuffer.allocate(16 * 1024);
            while (from.read(b) >= 0) {
                out.write(b.array(), 0, b.position());
                b.clear();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            // either side closed
        }
    }

    @Override
    public void close() {
        holder.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        holder.destroyForcibly();
        try {
            holder.waitFor(10, TimeUnit.SECONDS);
            relay.close();
            FakeKubelet.deleteTree(socketDir);
        } catch (IOException | InterruptedException ignored) {
            // closing anyway
        }
    }
}
