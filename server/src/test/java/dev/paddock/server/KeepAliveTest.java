package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A request body that its endpoint never reads must not cost the client its kept-alive connection: the body may
 * arrive after the handler finished (clients send headers and body in separate writes), and the next request on
 * the same connection must still be answered.
 */
class KeepAliveTest {
    static TestServer t;

    @BeforeAll
    static void start() {
        t = new TestServer();
    }

    @AfterAll
    static void stop() {
        t.close();
    }

    @Test
    void aBodyTheEndpointIgnoresStillLeavesTheConnectionUsable() throws Exception {
        try (Socket s = new Socket("127.0.0.1", t.server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            // GET /v1/health never reads a body; the body follows the headers a moment later
            out.write(("GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(300);
            out.write("{}".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readResponse(in)).startsWith("HTTP/1.1 200");

            out.write("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readResponse(in)).as("the second request on the same connection").startsWith("HTTP/1.1 200");
        }
    }

    /** Reads one response: its head, then Content-Length bytes (empty when the server closed the connection). */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        for (int b; matched < 4 && (b = in.read()) >= 0; ) {
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String text = head.toString(StandardCharsets.US_ASCII);
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                in.readNBytes(Integer.parseInt(line.substring(15).trim()));
            }
        }
        return text;
    }
}
