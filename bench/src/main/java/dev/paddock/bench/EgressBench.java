package dev.paddock.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.egress.policy.HostResolver;
import dev.paddock.egress.proxy.EgressConfig;
import dev.paddock.egress.proxy.EgressProxy;
import dev.paddock.egress.proxy.ProxyListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The egress proxy against a direct connection, side by side in one run on loopback: the latency a new connection
 * pays (one HTTP GET per connection, through the proxy's TCP listener and through the unix socket a sandbox uses)
 * and the bulk throughput of a CONNECT tunnel. Upstreams are plain sockets served by this process; the proxy reaches
 * them through its loopback test switch, under a {@code limited} policy naming them. Writes the "egress" section.
 */
public final class EgressBench {
    private static final byte[] RESPONSE = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".getBytes(StandardCharsets.US_ASCII);
    private static final long BULK = 1L << 30;
    private static final int ROUNDS = Integer.getInteger("paddock.bench.egress.rounds", 2000);
    private static final int BULK_RUNS = 5;

    private EgressBench() {}

    public static void main(String[] args) throws Exception {
        Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        String report;
        try (ServerSocket http = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
             ServerSocket bulk = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
            serve(http, EgressBench::answerGet);
            serve(bulk, EgressBench::sendBulk);
            int hp = http.getLocalPort(), bp = bulk.getLocalPort();
            HostResolver resolver = host -> List.of(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}));
            EgressConfig config = EgressConfig.defaults().resolver(resolver).allowLoopbackUpstreamPorts(Set.of(hp, bp));
            NetworkPolicy policy = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("bench.test:" + hp, "bench.test:" + bp), false);
            Path dir = Files.createTempDirectory("egress-bench");
            try (EgressProxy proxy = new EgressProxy(config, r -> { }, null);
                 ProxyListener tcp = proxy.listenTcp("sbx_bench", policy, null);
                 ProxyListener unix = proxy.listen("sbx_bench_unix", dir.resolve("p.sock"), policy)) {
                report = measure(hp, bp, tcp, unix);
            } finally {
                Files.deleteIfExists(dir.resolve("p.sock"));
                Files.deleteIfExists(dir);
            }
        }
        BenchReport.writeSection(repo, "egress", report);
        System.out.println(report);
        System.exit(0); // the upstream accept loops are daemon-less virtual threads blocked in accept
    }

    private static String measure(int hp, int bp, ProxyListener tcp, ProxyListener unix) throws IOException {
        String loadBefore = loadAverage();
        String direct = "GET / HTTP/1.1\r\nHost: bench.test\r\nConnection: close\r\n\r\n";
        String proxied = "GET http://bench.test:" + hp + "/ HTTP/1.1\r\nHost: bench.test\r\nConnection: close\r\n\r\n";
        double[] d = new double[ROUNDS], t = new double[ROUNDS], u = new double[ROUNDS];
        for (int pass = 0; pass < 2; pass++) { // the first pass warms the JIT and is thrown away
            for (int i = 0; i < ROUNDS; i++) {
                d[i] = tcpRequest(hp, direct);
                t[i] = tcpRequest(tcp.tcpPort(), proxied);
                u[i] = unixRequest(unix.socketPath(), proxied);
            }
        }
        List<double[]> bulkRuns = new ArrayList<>();
        double[] directCpu = new double[BULK_RUNS], tunnelCpu = new double[BULK_RUNS];
        for (int run = 0; run < BULK_RUNS; run++) {
            long c0 = cpuNanos();
            double directMBps = throughputDirect(bp);
            long c1 = cpuNanos();
            double tunnelMBps = throughputTunnel(unix.socketPath(), bp);
            long c2 = cpuNanos();
            bulkRuns.add(new double[] {directMBps, tunnelMBps});
            directCpu[run] = (c1 - c0) / 1e9;
            tunnelCpu[run] = (c2 - c1) / 1e9;
        }
        double cpuDirect = BenchReport.median(directCpu), cpuTunnel = BenchReport.median(tunnelCpu);
        // the proxy splices only where it can read a channel's descriptor (the server's jar opens sun.nio.ch)
        boolean spliced = Object.class.getModule().isOpen("sun.nio.ch", EgressBench.class.getModule());
        double dm = BenchReport.median(d), tm = BenchReport.median(t), um = BenchReport.median(u);
        double[] directMBs = bulkRuns.stream().mapToDouble(r -> r[0]).toArray();
        double[] tunnelMBs = bulkRuns.stream().mapToDouble(r -> r[1]).toArray();
        double ratio = 100 * BenchReport.median(tunnelMBs) / BenchReport.median(directMBs);
        StringBuilder md = new StringBuilder();
        md.append("## Egress proxy (EgressBench)\n\n").append(BenchReport.machine())
                .append(" (1-minute load average during the run: ").append(loadBefore).append(" → ").append(loadAverage()).append(")\n\n");
        md.append(String.format(Locale.ROOT, """
                New connection + one HTTP GET on loopback, %d rounds after a warm-up pass of as many (µs):

                | path | median | p90 | p99 | added (median) |
                |---|---|---|---|---|
                | direct | %.0f | %.0f | %.0f | — |
                | proxy, TCP listener | %.0f | %.0f | %.0f | %+.0f µs |
                | proxy, unix socket (what a sandbox uses) | %.0f | %.0f | %.0f | %+.0f µs |

                Target: ≤ 1 ms added per new connection (median) — **%s**. (Inside a bwrap sandbox the in-sandbox
                forwarder on 127.0.0.1:3128 adds one more loopback hop, not measured here.)

                Bulk download of 1 GiB, %d runs each (MB/s): direct %s; CONNECT tunnel over the unix socket %s.
                Tunnel/direct (medians): **%.0f%%** — target ≥ 80%% — **%s**.
                CPU time of this whole process (sender, proxy and receiver) per GiB (medians): direct %.2f s, tunnel %.2f s
                (the tunnel's bytes are %s). Where the %d cores are busy with all three, the tunnel's rate is bounded by
                direct/tunnel CPU time: **%.0f%%** of direct.
                """, ROUNDS,
                dm, us(d, 0.9), us(d, 0.99),
                tm, us(t, 0.9), us(t, 0.99), tm - dm,
                um, us(u, 0.9), us(u, 0.99), um - dm,
                Math.max(tm - dm, um - dm) <= 1000 ? "met" : "missed",
                BULK_RUNS, list(directMBs), list(tunnelMBs), ratio, ratio >= 80 ? "met" : "missed",
                cpuDirect, cpuTunnel, spliced ? "moved by the kernel, `splice(2)` through a pipe, never copied into the proxy"
                        : "copied through the proxy's buffer: this JVM was started without `--add-opens java.base/sun.nio.ch`",
                Runtime.getRuntime().availableProcessors(), 100 * cpuDirect / cpuTunnel));
        return md.toString();
    }

    private static String loadAverage() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }

    /** CPU time of this whole process: the bench's sender and receiver and the proxy all run in it. */
    private static long cpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double us(double[] v, double p) {
        return BenchReport.percentile(v, p);
    }

    private static String list(double[] v) {
        List<String> out = new ArrayList<>();
        for (double x : v) out.add(String.format(Locale.ROOT, "%.0f", x));
        return String.join(" / ", out);
    }

    /** Microseconds for one fresh TCP connection carrying one request and its whole answer. */
    private static double tcpRequest(int port, String request) throws IOException {
        long start = System.nanoTime();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setTcpNoDelay(true);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getInputStream().readAllBytes();
        }
        return (System.nanoTime() - start) / 1000.0;
    }

    private static double unixRequest(Path socket, String request) throws IOException {
        long start = System.nanoTime();
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ch.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
            Channels.newInputStream(ch).readAllBytes();
        }
        return (System.nanoTime() - start) / 1000.0;
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
            ch.write(ByteBuffer.wrap(("CONNECT bench.test:" + port + " HTTP/1.1\r\nHost: bench.test:" + port + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
            InputStream in = Channels.newInputStream(ch);
            readHead(in);
            long start = System.nanoTime();
            long n = drain(in);
            if (n < BULK) throw new IOException("the tunnel delivered " + n + " of " + BULK + " bytes");
            return n / 1e6 / ((System.nanoTime() - start) / 1e9);
        }
    }

    /** Reads up to the blank line after the proxy's answer; anything but 200 ends the run. */
    private static void readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) throw new IOException("the proxy closed the tunnel: " + head);
            head.append((char) b);
        }
        if (!head.toString().startsWith("HTTP/1.1 200")) throw new IOException("tunnel refused: " + head.toString().strip());
    }

    private static long drain(InputStream in) throws IOException {
        byte[] buf = new byte[256 * 1024];
        long n = 0;
        for (int r; (r = in.read(buf)) >= 0; ) n += r;
        return n;
    }

    private interface Handler {
        void handle(Socket s) throws IOException;
    }

    private static void serve(ServerSocket server, Handler handler) {
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread.ofVirtual().start(() -> {
                        try (s) {
                            handler.handle(s);
                        } catch (IOException ignored) {
                            // the client went away
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    /** Reads the request head (up to CRLF CRLF) and answers "ok". */
    private static void answerGet(Socket s) throws IOException {
        s.setTcpNoDelay(true);
        InputStream in = s.getInputStream();
        int matched = 0;
        for (int b; matched < 4 && (b = in.read()) >= 0; ) {
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        s.getOutputStream().write(RESPONSE);
    }

    private static void sendBulk(Socket s) throws IOException {
        OutputStream out = s.getOutputStream();
        byte[] chunk = new byte[256 * 1024];
        for (long left = BULK; left > 0; left -= chunk.length) out.write(chunk);
    }
}
