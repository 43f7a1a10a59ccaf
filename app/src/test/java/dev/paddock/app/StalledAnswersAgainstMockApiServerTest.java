package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI against a server that accepts the request and then stalls (a raw socket on loopback stands in for a hung
 * or hostile Paddock server): silent after the request, silent after the head, dripping a byte a second, an event
 * stream without events or keep-alives, a download that stops. Each ends the command with one line
 * {@code error: … (response_timeout)} and exit code 1 once {@code PADDOCK_HTTP_TIMEOUT} has passed, never a hang; an
 * event stream that stays quiet but sends keep-alives is not cut.
 */
class StalledAnswersAgainstMockApiServerTest {
    static final String ID = "sbx_0123456789abcdefghjkmnpqrs";
    @TempDir
    Path home;
    final List<ScriptedSocketServer> servers = new ArrayList<>();

    interface Answer {
        void write(OutputStream out) throws IOException, InterruptedException;
    }

    @AfterEach
    void stop() throws IOException {
        for (ScriptedSocketServer s : servers) s.close();
    }

    @Test
    void aServerThatAcceptsAndSaysNothingTimesOut() throws Exception {
        assertTimesOut(head -> silent(), "sandbox", "list");
        assertTimesOut(head -> silent(), "sandbox", "exec", ID, "--", "true");
        assertTimesOut(head -> silent(), "nodes");
    }

    @Test
    void aHeadWithoutItsBodyTimesOut() throws Exception {
        Answer stalls = out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            silent().write(out);
        };
        assertTimesOut(head -> stalls, "sandbox", "get", ID);
        Answer streamStalls = out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            silent().write(out);
        };
        assertTimesOut(head -> streamStalls, "sandbox", "exec", ID, "--", "true");
        assertTimesOut(head -> streamStalls, "sandbox", "egress", ID, "--follow");
    }

    @Test
    void aServerDrippingAByteASecondTimesOut() throws Exception {
        Answer drip = out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            drip(out, ' ');
        };
        assertTimesOut(head -> drip, "sandbox", "list");
        Answer headDrip = out -> drip(out, 'H'); // never even ends the status line
        assertTimesOut(head -> headDrip, "sandbox", "get", ID);
        Answer eventDrip = out -> { // bytes keep coming, but never a whole line: no event, no keep-alive
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: keepalive\n\n".getBytes(StandardCharsets.ISO_8859_1));
            drip(out, ':');
        };
        assertTimesOut(head -> eventDrip, "sandbox", "exec", ID, "--", "true");
    }

    @Test
    void aDownloadThatStopsTimesOut() throws Exception {
        Answer stat = json("{\"path\":\"/workspace/f\",\"name\":\"f\",\"type\":\"file\",\"size\":10}");
        Answer archiveStalls = out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: application/x-tar\r\nContent-Length: 10240\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.write(new byte[512]);
            out.flush();
            silent().write(out);
        };
        Files.createDirectories(home.resolve("dl"));
        assertTimesOut(head -> head.contains("/files/stat") ? stat : archiveStalls,
                "sandbox", "cp", ID + ":/workspace/f", home.resolve("dl").toString());
    }

    @Test
    void aQuietEventStreamWithKeepAlivesIsNotCut() throws Exception {
        // 6 s of keep-alives every 100 ms against a 3 s timeout: silence, not the stream's length, is what counts
        Answer quiet = out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            while (System.nanoTime() < end) {
                out.write(": keepalive\n\n".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                Thread.sleep(100);
            }
            out.write("event: stdout\ndata: {\"data_base64\":\"aGkK\"}\n\nevent: exit\ndata: {\"exit_code\":3}\n\n".getBytes(StandardCharsets.ISO_8859_1));
        };
        Cli.Result r = run(head -> quiet, "3s", "sandbox", "exec", ID, "--", "true");
        assertThat(r.code()).as("%s", r).isEqualTo(3);
        assertThat(r.out()).as("%s", r).isEqualTo("hi\n");
    }

    @Test
    void aCommandWaitsForAnAnswerWithinItsTimeout() throws Exception {
        // silence shorter than the timeout is a slow server, not a dead one
        Answer slow = out -> {
            Thread.sleep(1000);
            json("{\"data\":[],\"has_more\":false}").write(out);
        };
        Cli.Result r = run(head -> slow, "20s", "sandbox", "list");
        assertThat(r.code()).as("%s", r).isEqualTo(0);
    }

    @Test
    void aBadTimeoutIsAUsageError() throws Exception {
        Cli.Result r = run(head -> silent(), "soon", "sandbox", "list");
        assertThat(r.code()).as("%s", r).isEqualTo(2);
        assertThat(r.err()).as("%s", r).contains("PADDOCK_HTTP_TIMEOUT");
    }

    private static Answer silent() {
        return out -> Thread.sleep(TimeUnit.MINUTES.toMillis(5)); // until the client hangs up and the test ends
    }

    private static void drip(OutputStream out, char c) throws IOException, InterruptedException {
        for (int i = 0; i < 300; i++) {
            out.write(c);
            out.flush();
            Thread.sleep(1000);
        }
    }

    private static Answer json(String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        return out -> {
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + b.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.write(b);
        };
    }

    /** With a 2 s timeout: one line of error naming the timeout, exit 1, long before the server would say more. */
    private void assertTimesOut(Function<String, Answer> answers, String... args) throws Exception {
        Cli.Result r = run(answers, "2s", args);
        String what = String.join(" ", args) + " → " + r;
        assertThat(r.code()).as(what).isEqualTo(1);
        assertThat(r.err().strip()).as(what).startsWith("error: ").endsWith("(response_timeout)").doesNotContain("\n")
                .contains("2 s").doesNotContain("Exception");
    }

    private Cli.Result run(Function<String, Answer> answers, String timeout, String... args) throws Exception {
        ScriptedSocketServer server = new ScriptedSocketServer(s -> serve(s, answers));
        servers.add(server);
        Files.createDirectories(home);
        Cli cli = new Cli(Map.of("PADDOCK_URL", server.url(), "PADDOCK_API_KEY", "pdk_stalled_test",
                "PADDOCK_HTTP_TIMEOUT", timeout), home);
        return CompletableFuture.supplyAsync(() -> cli.run(args)).get(120, TimeUnit.SECONDS);
    }

    private static void serve(Socket s, Function<String, Answer> answers) {
        try (s) {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                int c = in.read();
                if (c < 0) return;
                head.write(c);
            }
            String h = head.toString(StandardCharsets.ISO_8859_1);
            int at = h.toLowerCase().indexOf("content-length:");
            if (at >= 0) in.readNBytes(Integer.parseInt(h.substring(at + 15, h.indexOf("\r\n", at)).trim()));
            OutputStream out = s.getOutputStream();
            answers.apply(h.lines().findFirst().orElse("")).write(out);
            out.flush();
            s.shutdownOutput();
        } catch (IOException | InterruptedException e) {
            // the client hung up
        }
    }
}
