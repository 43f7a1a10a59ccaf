package dev.paddock.egress.proxy;

import dev.paddock.core.egress.EgressAuditRecord;
import java.io.IOException;
import java.io.InputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * CONNECT tunnels relayed by the kernel ({@link SpliceRelay}; the test JVM opens {@code sun.nio.ch} as the server's
 * jar does): the bytes arrive whole and counted, the watchdog still ends an idle tunnel, and no descriptor or
 * relay thread outlives its tunnel.
 */
class SplicedTunnelTest {
    private static final String ESTABLISHED = "HTTP/1.1 200 Connection established\r\n\r\n";

    @Test
    void bulkTunnelIsSplicedByTheKernelAndAuditedExactly(@TempDir Path dir) throws Exception {
        try (Fixture f = new Fixture();
             var l = f.proxy.listen("sbx_splice", dir.resolve("p.sock"), Fixture.limited("api.test:" + f.upstreams.httpPort()));
             SocketChannel ch = open(l, f.upstreams.httpPort())) {
            InputStream in = Channels.newInputStream(ch);
            assertThat(new String(in.readNBytes(ESTABLISHED.length()), StandardCharsets.US_ASCII)).isEqualTo(ESTABLISHED);
            String get = "GET /bytes/" + (16 << 20) + " HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n";
            ch.write(ByteBuffer.wrap(get.getBytes(StandardCharsets.US_ASCII)));
            byte[] head = in.readNBytes(15);
            assertThat(relayThreads()).as("the tunnel runs on the splice relay's threads").isEqualTo(2);
            byte[] rest = in.readAllBytes();
            ch.shutdownOutput();
            assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200 OK");
            assertThat(rest.length).isGreaterThan(16 << 20);
            EgressAuditRecord r = f.records(1).getFirst();
            assertThat(r.mode()).isEqualTo("connect_tunnel");
            assertThat(r.bytesUp()).isEqualTo(get.length());
            assertThat(r.bytesDown()).isEqualTo(head.length + rest.length);
        }
    }

    @Test
    void idleSplicedTunnelIsClosedByTheWatchdog(@TempDir Path dir) throws Exception {
        try (Fixture f = new Fixture(EgressConfig.defaults().idleTimeout(Duration.ofMillis(300)));
             var l = f.proxy.listen("sbx_splice_idle", dir.resolve("p.sock"), Fixture.limited("api.test:" + f.upstreams.httpPort()));
             SocketChannel ch = open(l, f.upstreams.httpPort())) {
            InputStream in = Channels.newInputStream(ch);
            assertThat(new String(in.readNBytes(ESTABLISHED.length()), StandardCharsets.US_ASCII)).isEqualTo(ESTABLISHED);
            // nothing is sent: the upstream waits for a request, both relay threads wait in splice
            assertThat(in.read()).isEqualTo(-1);
            await().atMost(Duration.ofSeconds(30)).until(() -> l.activeConnections() == 0 && relayThreads() == 0);
            assertThat(f.records(1).getFirst().rule()).endsWith(";closed_by_idle_timeout");
        }
    }

    @Test
    void tunnelsLeaveNoDescriptorsOrThreadsBehind(@TempDir Path dir) throws Exception {
        try (Fixture f = new Fixture();
             var l = f.proxy.listen("sbx_splice_fds", dir.resolve("p.sock"), Fixture.limited("api.test:" + f.upstreams.httpPort()))) {
            // one tunnel first, so lazily opened descriptors (the JIT's, the poller's) are counted in the baseline
            exchange(l, f.upstreams.httpPort());
            await().atMost(Duration.ofSeconds(30)).until(() -> l.activeConnections() == 0);
            long before = openDescriptors();
            for (int i = 0; i < 20; i++) exchange(l, f.upstreams.httpPort());
            await().atMost(Duration.ofSeconds(30)).until(() -> l.activeConnections() == 0 && relayThreads() == 0);
            assertThat(openDescriptors()).isLessThanOrEqualTo(before);
        }
    }

    @Test
    void tunnelsPastTheSplicedCapCopyOnVirtualThreads(@TempDir Path dir) throws Exception {
        int idle = SpliceRelay.MAX_SPLICED;
        try (Fixture f = new Fixture(EgressConfig.defaults().maxConnectionsPerListener(idle + 8));
             var l = f.proxy.listen("sbx_splice_cap", dir.resolve("p.sock"), Fixture.limited("api.test:" + f.upstreams.httpPort()))) {
            java.util.List<SocketChannel> held = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < idle; i++) {
                    SocketChannel ch = open(l, f.upstreams.httpPort());
                    held.add(ch);
                    Channels.newInputStream(ch).readNBytes(ESTABLISHED.length());
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> relayThreads() == 2L * idle);
                // every splice slot is held by an idle tunnel: more tunnels still work, copied, with no thread of their own
                for (int i = 0; i < 3; i++) exchange(l, f.upstreams.httpPort());
                assertThat(relayThreads()).isEqualTo(2L * idle);
            } finally {
                for (SocketChannel ch : held) ch.close();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> l.activeConnections() == 0 && relayThreads() == 0);
        }
    }

    private static SocketChannel open(ProxyListener l, int port) throws IOException {
        SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(l.socketPath()));
        String connect = "CONNECT api.test:" + port + " HTTP/1.1\r\nHost: api.test:" + port + "\r\n\r\n";
        ch.write(ByteBuffer.wrap(connect.getBytes(StandardCharsets.US_ASCII)));
        return ch;
    }

    private static void exchange(ProxyListener l, int port) throws IOException {
        try (SocketChannel ch = open(l, port)) {
            InputStream in = Channels.newInputStream(ch);
            in.readNBytes(ESTABLISHED.length());
            ch.write(ByteBuffer.wrap("GET /x HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200 OK");
        }
    }

    private static long relayThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("egress-splice-")).count();
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
