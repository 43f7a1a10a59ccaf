package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI against a server that answers wrongly (a raw socket on loopback stands in for a broken or hostile Paddock
 * server; a real one never answers like this): truncated or malformed framing, bodies that are no JSON or JSON of
 * other shapes, endless answers and bad event-stream frames each end the command with one line {@code error: …} and
 * exit code 1, never a stack trace, a silent success or a hang.
 */
class HostileAnswersAgainstMockApiServerTest {
    static final String ID = "sbx_0123456789abcdefghjkmnpqrs";
    @TempDir
    Path home;
    final List<ServerSocket> servers = new ArrayList<>();

    interface Answer {
        void write(OutputStream out) throws IOException;
    }

    @AfterEach
    void stop() throws IOException {
        for (ServerSocket s : servers) s.close();
    }

    @Test
    void brokenFramingIsAnErrorNeverAShorterAnswer() throws Exception {
        assertOneLineError(raw("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n{\"data\":[]}"), "sandbox", "list");
        assertOneLineError(raw("HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n{\"data\":[]}"), "sandbox", "list");
        assertOneLineError(raw("HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"data\":[]}"), "sandbox", "list");
        assertOneLineError(raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n{\"dat\r\n0\r\n\r\n"), "sandbox", "list");
        assertOneLineError(raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"), "sandbox", "list");
        assertOneLineError(raw("HTTP/1.1 2xx OK\r\n\r\n"), "sandbox", "get", ID);
        assertOneLineError(raw("SSH-2.0-OpenSSH_9.6\r\n"), "sandbox", "get", ID);
        assertOneLineError(out -> { }, "sandbox", "get", ID); // closed without a word
    }

    @Test
    void bodiesThatAreNoJsonOrOtherJsonAreAnError() throws Exception {
        assertOneLineError(json("200 OK", "{\"id\":\"" + ID + "\",\"state\":\"runn"), "sandbox", "get", ID);
        assertOneLineError(json("200 OK", "[".repeat(100_000) + "]".repeat(100_000)), "sandbox", "get", ID);
        assertOneLineError(json("500 Internal Server Error", "<html><pre>java.lang.NullPointerException\n\tat x.y</pre></html>"),
                "sandbox", "get", ID);
        assertOneLineError(json("500 Internal Server Error", "{\"error\":".repeat(100_000)), "sandbox", "get", ID);
    }

    @Test
    void anEndlessAnswerIsCutOff() throws Exception {
        Answer endless = out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            byte[] spaces = " ".repeat(1 << 20).getBytes(StandardCharsets.ISO_8859_1);
            byte[] size = (Integer.toHexString(spaces.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            while (true) { // until the client hangs up
                out.write(size);
                out.write(spaces);
                out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
        };
        assertOneLineError(endless, "sandbox", "list");
        Answer endlessEvent = out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: stdout\r\ndata: ".getBytes(StandardCharsets.ISO_8859_1));
            byte[] a = "A".repeat(1 << 20).getBytes(StandardCharsets.ISO_8859_1);
            while (true) out.write(a);
        };
        assertOneLineError(endlessEvent, "sandbox", "exec", ID, "--", "true");
    }

    @Test
    void badEventStreamFramesAreAnError() throws Exception {
        for (String frame : List.of("event: stdout\ndata: {not json\n\n", "event: stdout\ndata: {\"data_base64\":\"!!!\"}\n\n",
                "event: stdout\ndata: {\"data_base64\":{\"a\":1}}\n\n", "event: exit\ndata: [1,2\n\n",
                "event: error\ndata: 42\n\n", "event: stdout\ndata: {\"data_base64\":\"aGk=\"}\n\n")) {
            assertOneLineError(raw("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + frame), "sandbox", "exec", ID, "--", "true");
        }
    }

    private Answer raw(String bytes) {
        return out -> out.write(bytes.getBytes(StandardCharsets.ISO_8859_1));
    }

    private Answer json(String status, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        return out -> {
            out.write(("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: " + b.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.write(b);
        };
    }

    /** Runs the command against a server that gives {@code answer} to every request; one line of error, exit 1. */
    private void assertOneLineError(Answer answer, String... args) throws Exception {
        ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        servers.add(server);
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread.ofVirtual().start(() -> serve(s, answer));
                } catch (IOException e) {
                    return;
                }
            }
        });
        Files.createDirectories(home);
        Cli cli = new Cli(Map.of("PADDOCK_URL", "http://127.0.0.1:" + server.getLocalPort(), "PADDOCK_API_KEY", "pdk_hostile_test"), home);
        Cli.Result r = CompletableFuture.supplyAsync(() -> cli.run(args)).get(120, TimeUnit.SECONDS);
        String what = String.join(" ", args) + " → " + r;
        assertThat(r.code()).as(what).isEqualTo(1);
        assertThat(r.err().strip()).as(what).startsWith("error: ").doesNotContain("\n").doesNotContain("Exception").doesNotContain("unexpected failure");
    }

    private static void serve(Socket s, Answer answer) {
        try (s) {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                int c = in.read();
                if (c < 0) return;
                head.write(c);
            }
            String h = head.toString(StandardCharsets.ISO_8859_1).toLowerCase();
            int at = h.indexOf("content-length:");
            if (at >= 0) in.readNBytes(Integer.parseInt(h.substring(at + 15, h.indexOf("\r\n", at)).trim()));
            OutputStream out = s.getOutputStream();
            answer.write(out);
            out.flush();
            s.shutdownOutput();
        } catch (IOException e) {
            // the client hung up
        }
    }
}
