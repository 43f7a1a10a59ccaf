package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Requests Jetty refuses before they reach a route still answer in the API's JSON error shape. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MalformedHttpTest {
    private final TestServer t = new TestServer();

    @AfterAll
    void close() {
        t.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "GET /v1/sandboxes/%zz HTTP/1.1",
            "GET /v1/sandboxes/%2e%2e/%2e%2e/etc HTTP/1.1",
            "GET /v1/sandboxes/a%2Fb HTTP/1.1",
            "GET /v1/sandboxes/%00 HTTP/1.1",
    })
    void answersJsonWithoutInternals(String requestLine) throws Exception {
        String raw = raw(requestLine + "\r\nHost: 127.0.0.1\r\nx-api-key: " + t.adminKey + "\r\nConnection: close\r\n\r\n");
        int split = raw.indexOf("\r\n\r\n");
        String head = raw.substring(0, split);
        String body = raw.substring(split + 4);
        assertThat(head).startsWith("HTTP/1.1 4");
        assertThat(head.toLowerCase()).contains("content-type: application/json");
        assertThat(body).contains("\"type\":\"error\"").doesNotContain("Exception").doesNotContain("at org.");
    }

    private String raw(String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", t.server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
