package dev.paddock.egress.proxy;

import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.spi.NetworkPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class EgressProxyTest {
    static Fixture f;

    @BeforeAll
    static void start() throws IOException { f = new Fixture(); }

    @AfterAll
    static void stop() { f.close(); }

    @BeforeEach
    void clear() { f.inMemoryAudit.clear(); f.upstreams.seen.clear(); }

    @Test
    void allowedHostOverPlainHttpReachesUpstreamAndIsAudited() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_http", Fixture.limited("api.test:" + f.upstreams.httpPort()), null)) {
            var resp = Fixture.get(Fixture.client(l, null), f.httpUrl("api.test", "/hello?token=abc"));
            assertThat(resp.statusCode()).isEqualTo(200);
            assertThat(resp.body()).isEqualTo("ok GET /hello body=0\n");
            assertThat(f.upstreams.last().query()).isEqualTo("token=abc");

            var r = f.records(1).getFirst();
            assertThat(r.sandboxId()).isEqualTo("sbx_http");
            assertThat(r.host()).isEqualTo("api.test");
            assertThat(r.resolvedAddress()).isEqualTo("127.0.0.1");
            assertThat(r.port()).isEqualTo(f.upstreams.httpPort());
            assertThat(r.method()).isEqualTo("GET");
            assertThat(r.url()).isEqualTo("http://api.test:" + f.upstreams.httpPort() + "/hello"); // query dropped
            assertThat(r.mode()).isEqualTo("http");
            assertThat(r.decision()).isEqualTo(EgressDecision.ALLOWED);
            assertThat(r.rule()).isEqualTo("allowed_hosts:api.test:" + f.upstreams.httpPort());
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bytesUp()).isPositive();
            assertThat(r.bytesDown()).isPositive();
            assertThat(r.duration()).isPositive();
            assertThat(r.time()).isNotNull();
        }
    }

    @Test
    void streamsLargeBodiesBothWaysWithChunkedAndLengthFraming() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_big", Fixture.limited("api.test:" + f.upstreams.httpPort()), null)) {
            HttpClient client = Fixture.client(l, null);
            long size = 20L * 1024 * 1024;
            var down = client.send(HttpRequest.newBuilder(URI.create(f.httpUrl("api.test", "/bytes/" + size))).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            long got;
            try (InputStream in = down.body()) {
                got = in.transferTo(OutputStream.nullOutputStream());
            }
            assertThat(got).isEqualTo(size);

            byte[] upload = new byte[3 * 1024 * 1024 + 17];
            var up = client.send(HttpRequest.newBuilder(URI.create(f.httpUrl("api.test", "/upload")))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(upload)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(up.body()).contains("body=" + upload.length);
            // a publisher of unknown length makes the client send chunked
            var chunked = client.send(HttpRequest.newBuilder(URI.create(f.httpUrl("api.test", "/upload")))
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(upload))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(chunked.body()).contains("body=" + upload.length);
        }
    }

    @Test
    void connectTunnelStaysEndToEndEncrypted() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_tls", Fixture.limited("secure.test:" + f.upstreams.httpsPort()), null)) {
            // the client trusts only the upstream's own CA: this works only if the proxy does not intercept
            try (HttpClient client = Fixture.client(l, f.upstreams.upstreamCa.clientContext())) {
                var resp = Fixture.get(client, f.httpsUrl("secure.test", "/tunnel"));
                assertThat(resp.statusCode()).isEqualTo(200);
                assertThat(resp.body()).isEqualTo("ok GET /tunnel body=0\n");
            } // closing the client ends the tunnel, which completes its audit record
            var r = f.recordsFor("sbx_tls", 1).getFirst();
            assertThat(r.mode()).isEqualTo("connect_tunnel");
            assertThat(r.method()).isEqualTo("CONNECT");
            assertThat(r.url()).isNull();
            assertThat(r.decision()).isEqualTo(EgressDecision.ALLOWED);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bytesUp()).isPositive();
            assertThat(r.bytesDown()).isPositive();
        }
    }

    @Test
    void hostNotInAllowedHostsGetsAClearProxyError() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_deny", Fixture.limited("api.test:" + f.upstreams.httpPort()), null)) {
            var resp = Fixture.get(Fixture.client(l, null), f.httpUrl("other.test", "/x"));
            assertThat(resp.statusCode()).isEqualTo(403);
            assertThat(resp.headers().firstValue("content-type")).hasValue("text/plain; charset=utf-8");
            assertThat(resp.body()).contains("other.test").contains("host_not_allowed");
            assertThat(f.upstreams.seen).isEmpty();
            var r = f.records(1).getFirst();
            assertThat(r.decision()).isEqualTo(EgressDecision.DENIED);
            assertThat(r.rule()).isEqualTo("host_not_allowed");
            assertThat(r.bytesUp()).isZero();
        }
    }

    @Test
    void connectToUnlistedHostIsDeniedWith403() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_cdeny", Fixture.limited("api.test"), null)) {
            String reply = rawExchange(l, "CONNECT other.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n");
            assertThat(reply).startsWith("HTTP/1.1 403 ").contains("other.test:443");
            assertThat(f.records(1).getFirst().decision()).isEqualTo(EgressDecision.DENIED);
        }
    }

    @ParameterizedTest
    @EnumSource(NetworkPolicy.Mode.class)
    void privateMetadataAndLoopbackAreRefusedInEveryModeEvenThroughAllowedNames(NetworkPolicy.Mode mode) throws Exception {
        List<String> names = List.of("internal.test", "metadata.test", "metadata6.test", "loop.test", "mapped.test", "mixed.test",
                "169.254.169.254", "10.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0");
        var policy = new NetworkPolicy(mode, names, true);
        try (var l = f.proxy.listenTcp("sbx_guard", policy, null)) {
            for (String target : List.of("internal.test:80", "metadata.test:80", "metadata6.test:80", "loop.test:80", "mapped.test:80",
                    "mixed.test:80", "169.254.169.254:80", "10.0.0.1:80", "[::1]:80", "[::ffff:127.0.0.1]:80", "0.0.0.0:80")) {
                String http = rawExchange(l, "GET http://" + target + "/latest/meta-data HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(http).as("GET %s in %s", target, mode).startsWith("HTTP/1.1 403 ");
                String connect = rawExchange(l, "CONNECT " + target + " HTTP/1.1\r\n\r\n");
                assertThat(connect).as("CONNECT %s in %s", target, mode).startsWith("HTTP/1.1 403 ");
            }
        }
        var records = f.records(22); // 11 targets, each by GET and by CONNECT
        assertThat(records).allSatisfy(r -> assertThat(r.decision()).isEqualTo(EgressDecision.DENIED));
        if (mode != NetworkPolicy.Mode.NONE) {
            assertThat(records).extracting(EgressAuditRecord::rule)
                    .contains("blocked_address_private", "blocked_address_metadata", "blocked_address_loopback", "blocked_address_unspecified");
            var viaName = records.stream().filter(r -> r.host().equals("metadata.test")).findFirst().orElseThrow();
            assertThat(viaName.rule()).isEqualTo("blocked_address_metadata");
        }
        assertThat(f.upstreams.seen).isEmpty();
    }

    @Test
    void blockedAddressErrorNamesTheHostAndTheReason() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_reason", new NetworkPolicy(NetworkPolicy.Mode.UNRESTRICTED, List.of(), false), null)) {
            var resp = Fixture.get(Fixture.client(l, null), "http://internal.test/");
            assertThat(resp.statusCode()).isEqualTo(403);
            assertThat(resp.body()).contains("internal.test:80").contains("10.0.0.1").contains("blocked_address_private");
            assertThat(f.records(1).getFirst().resolvedAddress()).isNull();
        }
    }

    @Test
    void modeNoneRefusesEverything() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_none", NetworkPolicy.NONE, null)) {
            var resp = Fixture.get(Fixture.client(l, null), f.httpUrl("api.test", "/"));
            assertThat(resp.statusCode()).isEqualTo(403);
            assertThat(resp.body()).contains("network_mode_none");
        }
    }

    @Test
    void unixSocketListenerIdentifiesTheSandbox(@TempDir Path dir) throws Exception {
        Path socket = dir.resolve("egress.sock");
        try (var l = f.proxy.listen("sbx_unix", socket, Fixture.limited("api.test:" + f.upstreams.httpPort()))) {
            assertThat(l.socketPath()).isEqualTo(socket);
            try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                String req = "GET " + f.httpUrl("api.test", "/via-unix") + " HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n";
                ch.write(ByteBuffer.wrap(req.getBytes(StandardCharsets.US_ASCII)));
                String reply = new String(Channels.newInputStream(ch).readAllBytes(), StandardCharsets.ISO_8859_1);
                assertThat(reply).startsWith("HTTP/1.1 200 ").endsWith("ok GET /via-unix body=0\n");
            }
            assertThat(f.records(1).getFirst().sandboxId()).isEqualTo("sbx_unix");
        }
        assertThat(socket).doesNotExist();
    }

    @Test
    void unixTunnelDeliversMegabytesAndAuditsExactByteCounts(@TempDir Path dir) throws Exception {
        int port = f.upstreams.httpPort();
        try (var l = f.proxy.listen("sbx_tunnel_bulk", dir.resolve("bulk.sock"), Fixture.limited("api.test:" + port));
             SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(l.socketPath()))) {
            String connect = "CONNECT api.test:" + port + " HTTP/1.1\r\nHost: api.test:" + port + "\r\n\r\n";
            String established = "HTTP/1.1 200 Connection established\r\n\r\n";
            ch.write(ByteBuffer.wrap(connect.getBytes(StandardCharsets.US_ASCII)));
            InputStream in = Channels.newInputStream(ch);
            assertThat(new String(in.readNBytes(established.length()), StandardCharsets.US_ASCII)).isEqualTo(established);
            // well past the tunnel's socket buffers, so the pumps block and resume many times
            String get = "GET /bytes/" + (24 << 20) + " HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n";
            ch.write(ByteBuffer.wrap(get.getBytes(StandardCharsets.US_ASCII)));
            byte[] reply = in.readAllBytes();
            ch.shutdownOutput(); // ends the upward direction, so the tunnel finishes and is audited
            assertThat(new String(reply, 0, 15, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200 OK");
            assertThat(reply.length).isGreaterThan(24 << 20);
            EgressAuditRecord r = f.records(1).getFirst();
            assertThat(r.mode()).isEqualTo("connect_tunnel");
            assertThat(r.bytesUp()).isEqualTo(get.length());
            assertThat(r.bytesDown()).isEqualTo(reply.length);
        }
    }

    @Test
    void keepAliveCarriesSeveralRequestsEachAudited() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_keep", Fixture.limited("api.test:" + f.upstreams.httpPort()), null)) {
            HttpClient client = Fixture.client(l, null);
            for (int i = 0; i < 3; i++) assertThat(Fixture.get(client, f.httpUrl("api.test", "/k" + i)).statusCode()).isEqualTo(200);
            assertThat(f.records(3)).hasSize(3).extracting(EgressAuditRecord::url)
                    .containsExactly(f.httpUrl("api.test", "/k0"), f.httpUrl("api.test", "/k1"), f.httpUrl("api.test", "/k2"));
        }
    }

    @Test
    void idleConnectionsAreClosed() throws Exception {
        try (var fx = new Fixture(EgressConfig.defaults().idleTimeout(Duration.ofMillis(300)));
             var l = fx.proxy.listenTcp("sbx_idle", NetworkPolicy.NONE, null);
             var socket = new java.net.Socket("127.0.0.1", l.tcpPort())) {
            socket.getOutputStream().write("GET http://api.test/ HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII)); // never finished
            socket.setSoTimeout(10_000);
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
            await().until(() -> l.activeConnections() == 0);
        }
    }

    @Test
    void userinfoInUrlIsRefusedAndNeverAudited() throws Exception {
        try (var l = f.proxy.listenTcp("sbx_userinfo", Fixture.limited("api.test:" + f.upstreams.httpPort()), null)) {
            String reply = rawExchange(l, "GET http://user:hunter2@api.test:" + f.upstreams.httpPort() + "/ HTTP/1.1\r\nHost: api.test\r\n\r\n");
            assertThat(reply).startsWith("HTTP/1.1 400 ");
            assertThat(f.records(1).toString()).doesNotContain("hunter2");
        }
    }

    /** Sends raw bytes, half-closes, and returns everything the proxy answered. */
    static String rawExchange(ProxyListener l, String request) throws IOException {
        try (var socket = new java.net.Socket("127.0.0.1", l.tcpPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.shutdownOutput();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
