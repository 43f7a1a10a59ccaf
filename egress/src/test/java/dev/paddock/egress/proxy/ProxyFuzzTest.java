package dev.paddock.egress.proxy;

import dev.paddock.core.spi.NetworkPolicy;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Throws thousands of random and mutated request heads at the proxy. Every one must end in a 4xx answer or a
 * closed connection, within the socket timeout; afterwards the proxy must still serve a good request and hold
 * no connection open.
 */
class ProxyFuzzTest {
    private static final List<String> SEEDS = List.of(
            "GET http://api.test:%d/path?q=1 HTTP/1.1\r\nHost: api.test\r\nAccept: */*\r\n\r\n",
            "POST http://api.test:%d/upload HTTP/1.1\r\nHost: api.test\r\nContent-Length: 5\r\n\r\nhello",
            "POST http://api.test:%d/upload HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "CONNECT api.test:%d HTTP/1.1\r\nHost: api.test\r\n\r\n",
            "GET http://[::1]:%d/ HTTP/1.0\r\n\r\n");
    private static final String[] TOKENS = {"\r\n", "\n", "\r", " ", ":", "\u0000", "\t", "http://", "[", "]", "@", "%00",
            "Content-Length: -1\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: 99999999999999999999\r\n", "\u00ff", "CONNECT", "::::"};

    @Test
    void malformedRequestsGet4xxOrACloseAndNeverHangTheProxy() throws Exception {
        try (var f = new Fixture()) {
            int port = f.upstreams.httpPort();
            // requests that parse are refused by the policy before anything goes upstream, so every answer is 4xx
            var policy = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("nothing.test"), false);
            try (var l = f.proxy.listenTcp("sbx_fuzz", policy, null)) {
                Random random = new Random(42);
                int answered4xx = 0, closed = 0;
                for (int i = 0; i < 3000; i++) {
                    byte[] request = i % 4 == 0 ? randomBytes(random) : mutate(String.format(SEEDS.get(random.nextInt(SEEDS.size())), port), random);
                    String reply = exchange(l.tcpPort(), request);
                    if (reply.isEmpty()) {
                        closed++;
                    } else {
                        assertThat(reply).as("reply to request #%d", i).matches("(?s)HTTP/1\\.1 4\\d\\d .*");
                        answered4xx++;
                    }
                }
                assertThat(answered4xx).isPositive();
                assertThat(closed + answered4xx).isEqualTo(3000);
                await().until(() -> l.activeConnections() == 0);
                assertThat(f.upstreams.seen).isEmpty();
            }
            try (var good = f.proxy.listenTcp("sbx_after_fuzz", Fixture.limited("api.test:" + port), null)) {
                assertThat(EgressProxyTest.rawExchange(good, "GET http://api.test:" + port + "/still-alive HTTP/1.1\r\nHost: api.test\r\n\r\n"))
                        .startsWith("HTTP/1.1 200 ").endsWith("ok GET /still-alive body=0\n");
            }
        }
    }

    @Test
    void oversizedHeadsAreRefused() throws Exception {
        try (var f = new Fixture(); var l = f.proxy.listenTcp("sbx_big_head", NetworkPolicy.NONE, null)) {
            String longLine = "GET http://api.test/" + "a".repeat(20_000) + " HTTP/1.1\r\n\r\n";
            assertThat(new String(exchangeRaw(l.tcpPort(), longLine), StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 414 ");
            StringBuilder many = new StringBuilder("GET http://api.test/ HTTP/1.1\r\n");
            for (int i = 0; i < 500; i++) many.append("X-H").append(i).append(": v\r\n");
            many.append("\r\n");
            assertThat(new String(exchangeRaw(l.tcpPort(), many.toString()), StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 431 ");
        }
    }

    private static byte[] exchangeRaw(int port, String request) throws IOException {
        return exchange(port, request.getBytes(StandardCharsets.ISO_8859_1)).getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String exchange(int port, byte[] request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000); // a hang fails the test with SocketTimeoutException
            try {
                s.getOutputStream().write(request);
                s.shutdownOutput();
            } catch (SocketException e) {
                // the proxy may close early on garbage; reading tells us what it said before
            }
            InputStream in = s.getInputStream();
            try {
                return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            } catch (SocketException e) {
                return ""; // reset: the proxy closed
            }
        }
    }

    private static byte[] randomBytes(Random r) {
        byte[] b = new byte[r.nextInt(2000)];
        r.nextBytes(b);
        return b;
    }

    private static byte[] mutate(String seed, Random r) {
        StringBuilder s = new StringBuilder(seed);
        int edits = 1 + r.nextInt(6);
        for (int e = 0; e < edits && !s.isEmpty(); e++) {
            int pos = r.nextInt(s.length());
            switch (r.nextInt(5)) {
                case 0 -> s.deleteCharAt(pos);
                case 1 -> s.insert(pos, TOKENS[r.nextInt(TOKENS.length)]);
                case 2 -> s.setCharAt(pos, (char) r.nextInt(256));
                case 3 -> s.setLength(pos); // truncate
                default -> s.insert(pos, s.substring(pos, Math.min(s.length(), pos + r.nextInt(40)))); // duplicate a span
            }
        }
        return s.toString().getBytes(StandardCharsets.ISO_8859_1);
    }
}
