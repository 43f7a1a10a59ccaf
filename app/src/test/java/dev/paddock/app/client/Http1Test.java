package dev.paddock.app.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The CLI's HTTP/1.1 client against the JDK's HTTP server and a raw socket on loopback. */
class Http1Test {
    HttpServer server;
    String base;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/echo", x -> {
            byte[] in = x.getRequestBody().readAllBytes();
            byte[] out = (x.getRequestMethod() + " " + x.getRequestURI() + " " + in.length + " "
                    + x.getRequestHeaders().getFirst("x-api-key")).getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, out.length);
            x.getResponseBody().write(out);
            x.close();
        });
        server.createContext("/chunked", x -> {
            x.sendResponseHeaders(200, 0); // length unknown: chunked
            try (OutputStream out = x.getResponseBody()) {
                for (int i = 0; i < 100; i++) out.write(("line " + i + "\n").getBytes(StandardCharsets.UTF_8));
            }
        });
        server.createContext("/empty", x -> {
            x.sendResponseHeaders(204, -1);
            x.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void sendsBodiesByLengthAndChunkedAndReadsAnswersByLength() throws Exception {
        try (Http1.Response r = Http1.send(URI.create(base + "/echo?a=1"), "PUT", Map.of("x-api-key", "k1"),
                new Http1.Body.Bytes("hello".getBytes(StandardCharsets.UTF_8)), new Http1.Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)))) {
            assertThat(r.status()).isEqualTo(200);
            assertThat(new String(r.body().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("PUT /echo?a=1 5 k1");
        }
        byte[] big = new byte[300_000];
        try (Http1.Response r = Http1.send(URI.create(base + "/echo"), "POST", Map.of("x-api-key", "k2"),
                new Http1.Body.Streamed(() -> new ByteArrayInputStream(big)), new Http1.Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)))) {
            assertThat(new String(r.body().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("POST /echo 300000 k2");
        }
    }

    @Test
    void readsChunkedAndEmptyAnswers() throws Exception {
        try (Http1.Response r = Http1.send(URI.create(base + "/chunked"), "GET", Map.of(), Http1.Body.NONE, new Http1.Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)))) {
            String text = new String(r.body().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(text.lines()).hasSize(100).startsWith("line 0").endsWith("line 99");
        }
        try (Http1.Response r = Http1.send(URI.create(base + "/empty"), "DELETE", Map.of(), Http1.Body.NONE, new Http1.Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)))) {
            assertThat(r.status()).isEqualTo(204);
            assertThat(r.body().readAllBytes()).isEmpty();
        }
    }

    @Test
    void anAnswerSentBeforeTheBodyIsReadStillArrives() throws Exception {
        // a server that refuses an upload by its headers and closes without reading the body, as a 413 does
        try (ServerSocket raw = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try (Socket s = raw.accept()) {
                    InputStream in = s.getInputStream();
                    StringBuilder head = new StringBuilder();
                    while (!head.toString().endsWith("\r\n\r\n")) head.append((char) in.read());
                    String body = "{\"error\":{\"code\":\"payload_too_large\"}}";
                    s.getOutputStream().write(("HTTP/1.1 413 Payload Too Large\r\nContent-Length: " + body.length()
                            + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1));
                    s.getOutputStream().flush();
                    s.shutdownOutput();
                    Thread.sleep(200);
                } catch (Exception ignored) {
                    // the client's side decides the test
                }
            });
            byte[] huge = new byte[64 << 20];
            try (Http1.Response r = Http1.send(URI.create("http://127.0.0.1:" + raw.getLocalPort() + "/upload"), "PUT", Map.of(),
                    new Http1.Body.Streamed(() -> new ByteArrayInputStream(huge)), new Http1.Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)))) {
                assertThat(r.status()).isEqualTo(413);
                assertThat(new String(r.body().readAllBytes(), StandardCharsets.UTF_8)).contains("payload_too_large");
            }
        }
    }
}
