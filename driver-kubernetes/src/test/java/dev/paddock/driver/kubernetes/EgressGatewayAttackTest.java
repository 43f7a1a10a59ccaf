package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile clients of the kubernetes egress gateway, on real sockets: only a sandbox's own id and token pass, the
 * credential never reaches the proxy, and a client that sends its request head slowly or without end is cut off
 * instead of holding one of the gateway's connection slots (which every pod's egress shares).
 */
class EgressGatewayAttackTest {
    @TempDir
    Path dir;
    EgressGateway gateway;
    ServerSocketChannel proxy;
    final CompletableFuture<String> proxyGot = new CompletableFuture<>();

    @BeforeEach
    void start() throws IOException {
        gateway = new EgressGateway("127.0.0.1", 0, Duration.ofSeconds(2));
        Path socket = dir.resolve("egress.sock");
        proxy = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        proxy.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofVirtual().start(() -> {
            try (SocketChannel c = proxy.accept()) {
                ByteBuffer b = ByteBuffer.allocate(64 * 1024);
                while (!new String(b.array(), 0, b.position(), StandardCharsets.ISO_8859_1).contains("\r\n\r\n") && c.read(b) >= 0) { }
                proxyGot.complete(new String(b.array(), 0, b.position(), StandardCharsets.ISO_8859_1));
                c.write(ByteBuffer.wrap("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)));
            } catch (IOException e) {
                proxyGot.completeExceptionally(e);
            }
        });
        gateway.route("sbx_one", "token-of-one", socket);
        gateway.route("sbx_two", "token-of-two", dir.resolve("other.sock"));
    }

    @AfterEach
    void stop() throws IOException {
        gateway.close();
        proxy.close();
    }

    @Test
    void onlyTheSandboxsOwnIdAndTokenPassAndTheCredentialNeverReachesTheProxy() throws Exception {
        assertThat(exchange(request(null))).startsWith("HTTP/1.1 407");
        assertThat(exchange(request(basic("sbx_one:token-of-two")))).startsWith("HTTP/1.1 407");
        assertThat(exchange(request(basic("sbx_two:token-of-one")))).startsWith("HTTP/1.1 407");
        assertThat(exchange(request(basic("sbx_one:token-of-on")))).startsWith("HTTP/1.1 407");
        assertThat(exchange(request(basic("sbx_one:token-of-one\r\nX-Injected: 1")))).startsWith("HTTP/1.1 407");
        assertThat(exchange(request("Bearer token-of-one"))).startsWith("HTTP/1.1 407");
        assertThat(exchange(request("Basic !!!not-base64"))).startsWith("HTTP/1.1 407");
        assertThat(exchange("GET / HTTP/1.1\r\nHost: gateway\r\n\r\n")).as("not a proxy request").startsWith("HTTP/1.1 407");
        gateway.unroute("sbx_three");
        gateway.route("sbx_three", "token-of-three", dir.resolve("three.sock"));
        gateway.unroute("sbx_three");
        assertThat(exchange(request(basic("sbx_three:token-of-three")))).as("a deleted sandbox's token").startsWith("HTTP/1.1 407");
        assertThat(proxyGot).isNotDone();

        assertThat(exchange(request(basic("sbx_one:token-of-one")))).startsWith("HTTP/1.1 204");
        String passed = proxyGot.get(60, TimeUnit.SECONDS);
        assertThat(passed).startsWith("CONNECT 169.254.169.254:80 HTTP/1.1\r\n").doesNotContainIgnoringCase("proxy-authorization")
                .doesNotContain("token-of-one");
    }

    @Test
    void aHeadOverTheLimitIsRefused() throws Exception {
        String start = "CONNECT example.com:443 HTTP/1.1\r\nX-Fill: ";
        String huge = start + "a".repeat(EgressGateway.MAX_HEAD_BYTES - start.length()); // exactly full, no end in sight
        assertThat(exchange(huge)).startsWith("HTTP/1.1 431");
    }

    @Test
    void aHeadThatDripsInWithoutEndIsCutOffAtTheDeadline() throws Exception {
        try (Socket s = new Socket("127.0.0.1", gateway.port())) {
            s.setSoTimeout(120_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write("CONNECT example.com:443 HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.ISO_8859_1));
            // one byte now and then, far more often than any per-read timeout, for far longer than the deadline
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            boolean cut = false;
            while (System.nanoTime() < until) {
                try {
                    out.write('a');
                    out.flush();
                } catch (IOException e) {
                    cut = true;
                    break;
                }
                if (in.available() > 0) {
                    cut = true;
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(cut).as("the gateway still held the dripping connection after 90 s").isTrue();
            String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 408");
        }
        assertThat(proxyGot).isNotDone();
    }

    private String exchange(String head) throws IOException {
        try (Socket s = new Socket("127.0.0.1", gateway.port())) {
            s.setSoTimeout(60_000);
            s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            s.getInputStream().transferTo(got);
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static String request(String credential) {
        return "CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: 169.254.169.254:80\r\n"
                + (credential == null ? "" : "Proxy-Authorization: " + credential + "\r\n") + "\r\n";
    }

    private static String basic(String idAndToken) {
        return "Basic " + Base64.getEncoder().encodeToString(idAndToken.getBytes(StandardCharsets.UTF_8));
    }
}
