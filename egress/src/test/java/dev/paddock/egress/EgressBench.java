package dev.paddock.egress;

import dev.paddock.core.spi.NetworkPolicy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Not a test: measures, side by side in one run, the latency a new connection pays through the proxy versus
 * direct on loopback, and CONNECT tunnel bulk throughput versus direct. Run with the test classpath:
 * {@code java -cp target/classes:target/test-classes:<deps> dev.paddock.egress.EgressBench}.
 */
public final class EgressBench {
    private static final byte[] RESPONSE = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".getBytes(StandardCharsets.US_ASCII);
    private static final long BULK = 1L << 30;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        try (ServerSocket http = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
             ServerSocket bulk = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
            serveHttp(http);
            serveBulk(bulk);
            int hp = http.getLocalPort(), bp = bulk.getLocalPort();
            Resolver resolver = host -> List.of(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}));
            var config = EgressConfig.defaults().resolver(resolver).allowLoopbackUpstreamPorts(Set.of(hp, bp));
            var policy = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("bench.test:" + hp, "bench.test:" + bp), false);
            Path dir = Files.createTempDirectory("egress-bench");
            try (var proxy = new EgressProxy(config, r -> { }, null);
                 var tcp = proxy.listenTcp("sbx_bench", policy, null);
                 var unix = proxy.listen("sbx_bench_unix", dir.resolve("p.sock"), policy)) {
                String direct = "GET / HTTP/1.1\r\nHost: bench.test\r\nConnection: close\r\n\r\n";
                String proxied = "GET http://bench.test:" + hp + "/ HTTP/1.1\r\nHost: bench.test\r\nConnection: close\r\n\r\n";
                for (int warm = 0; warm < 2; warm++) {
                    long[] d = new long[rounds], t = new long[rounds], u = new long[rounds];
                    for (int i = 0; i < rounds; i++) {
                        d[i] = tcpRequest(hp, direct);
                        t[i] = tcpRequest(tcp.tcpPort(), proxied);
                        u[i] = unixRequest(unix.socketPath(), proxied);
                    }
                    if (warm == 1) {
                        System.out.printf("new-connection GET, median of %d: direct %.0f us, via proxy TCP %.0f us (+%.0f us), via proxy unix socket %.0f us (+%.0f us)%n",
                                rounds, med(d), med(t), med(t) - med(d), med(u), med(u) - med(d));
                    }
                }
                for (int run = 0; run < 3; run++) {
                    double directMBs = throughputDirect(bp);
                    double tunnelMBs = throughputTunnel(unix.socketPath(), bp);
                    System.out.printf("bulk 1 GiB download: direct %.0f MB/s, CONNECT tunnel over unix socket %.0f MB/s (%.0f%%)%n",
                            directMBs, tunnelMBs, 100 * tunnelMBs / directMBs);
                }
            }
        }
        System.exit(0);
    }

    private static double med(long[] nanos) {
        long[] c = nanos.clone();
        Arrays.sort(c);
        return c[c.length / 2] / 1000.0;
    }

    private static long tcpRequest(int port, String request) throws IOException {
        long start = System.nanoTime();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setTcpNoDelay(true);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getInputStream().readAllBytes();
        }
        return System.nanoTime() - start;
    }

    private static long unixRequest(Path socket, String request) throws IOException {
        long start = System.nanoTime();
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ch.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
            Channels.newInputStream(ch).readAllBytes();
        }
        return System.nanoTime() - start;
    }

    private static double throughputDirect(int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            long start = System.nanoTime();
            long n = drain(s.getInputStream());
            return n / 1e6 / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static double throughputTunnel(Path socket, int port) throws IOException {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ch.write(ByteBuffer.wrap(("CONNECT bench.test:" + port + " HTTP/1.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer head = ByteBuffer.allocate("HTTP/1.1 200 Connection established\r\n\r\n".length());
            while (head.hasRemaining()) if (ch.read(head) < 0) throw new IOException("tunnel refused");
            long start = System.nanoTime();
            ByteBuffer buf = ByteBuffer.allocateDirect(256 * 1024);
            long n = 0;
            int r;
            while ((r = ch.read(buf)) >= 0) { n += r; buf.clear(); }
            return n / 1e6 / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static long drain(InputStream in) throws IOException {
        byte[] buf = new byte[256 * 1024];
        long n = 0;
        int r;
        while ((r = in.read(buf)) >= 0) n += r;
        return n;
    }

    private static void serveHttp(ServerSocket server) {
        Thread.ofVirtual().start(() -> {
            while (true) {
                try {
                    Socket s = server.accept();
                    Thread.ofVirtual().start(() -> {
                        try (s) {
                            s.setTcpNoDelay(true);
                            InputStream in = s.getInputStream();
                            int state = 0, b;
                            while (state < 4 && (b = in.read()) >= 0) state = (b == (state % 2 == 0 ? '\r' : '\n')) ? state + 1 : (b == '\r' ? 1 : 0);
                            s.getOutputStream().write(RESPONSE);
                        } catch (IOException ignored) {
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    private static void serveBulk(ServerSocket server) {
        Thread.ofVirtual().start(() -> {
            while (true) {
                try {
                    Socket s = server.accept();
                    Thread.ofVirtual().start(() -> {
                        try (s; OutputStream out = s.getOutputStream()) {
                            byte[] chunk = new byte[256 * 1024];
                            for (long left = BULK; left > 0; left -= chunk.length) out.write(chunk);
                        } catch (IOException ignored) {
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
    }
}
