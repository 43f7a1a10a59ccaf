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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI against a server that answers wrongly (a raw socket on loopback stands in for a broken or hostile Paddock
 * server; a real one never answers like this): truncated or malformed framing, bodies that are no JSON or JSON of
 * other shapes, endless answers and bad event-stream frames each end the command with one line {@code error: …} and
 * exit code 1, never a stack trace, a silent success or a hang. A field of the wrong type (or absurd length) in the
 * answer of any command family is refused as {@code invalid_response} naming the field, and control characters in
 * what the server sends (terminal escape sequences, C1 controls, bidirectional overrides) reach the terminal only
 * escaped, in tables, single values, {@code --json}, event streams and error messages alike.
 */
class HostileAnswersAgainstMockApiServerTest {
    static final String ID = "sbx_0123456789abcdefghjkmnpqrs";
    @TempDir
    Path home;
    final List<ScriptedSocketServer> servers = new ArrayList<>();

    interface Answer {
        void write(OutputStream out) throws IOException;
    }

    @AfterEach
    void stop() throws IOException {
        for (ScriptedSocketServer s : servers) s.close();
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

    @Test
    void wronglyTypedFieldsAreRefusedNamingTheField() throws Exception {
        String cp = "cp_0123456789abcdefghjkmnpqrs";
        assertInvalid("id", json("200 OK", "{\"data\":[{\"id\":12345,\"state\":\"running\"}]}"), "sandbox", "list");
        assertInvalid("data", json("200 OK", "{\"data\":{\"id\":\"" + ID + "\"}}"), "sandbox", "list");
        assertInvalid("limits", json("200 OK", "{\"data\":[{\"id\":\"" + ID + "\",\"limits\":\"big\"}]}"), "sandbox", "list");
        assertInvalid("id", json("200 OK", "{\"id\":{\"a\":1},\"state\":\"running\"}"), "sandbox", "get", ID);
        assertInvalid("id", json("200 OK", "{\"id\":[\"" + ID + "\"]}"), "sandbox", "create");
        assertInvalid("state", json("200 OK", "{\"id\":\"" + ID + "\",\"state\":7}"), "sandbox", "rm", ID);
        assertInvalid("exit_code", raw("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: exit\ndata: {\"exit_code\":\"zero\"}\n\n"),
                "sandbox", "exec", ID, "--", "true");
        assertInvalid("exit_code", json("200 OK", "{\"exit_code\":\"0\"}"), "sandbox", "exec", "--json", ID, "--", "true");
        assertInvalid("name", json("200 OK", "{\"data\":[{\"name\":5,\"type\":\"file\"}]}"), "sandbox", "ls", ID + ":/workspace");
        assertInvalid("type", json("200 OK", "{\"type\":3}"), "sandbox", "cp", ID + ":/workspace/f", home.toString());
        assertInvalid("epoch", json("200 OK", "{\"data\":[{\"id\":\"node_a\",\"epoch\":\"one\"}]}"), "nodes");
        assertInvalid("admin", json("200 OK", "{\"data\":[{\"id\":\"key_a\",\"admin\":\"yes\"}]}"), "keys", "list");
        assertInvalid("size_bytes", json("200 OK", "{\"data\":[{\"id\":\"" + cp + "\",\"size_bytes\":\"big\"}]}"), "sandbox", "checkpoints", ID);
        assertInvalid("at", json("200 OK", "{\"data\":[{\"at\":1,\"type\":\"x\"}]}"), "sandbox", "events", ID);
        assertInvalid("port", json("200 OK", "{\"data\":[{\"time\":\"t\",\"port\":\"80\"}]}"), "sandbox", "egress", ID);
        assertInvalid("pid", json("200 OK", "{\"data\":[{\"pid\":\"1\"}]}"), "sandbox", "ps", ID);
        assertInvalid("driver", json("200 OK", "{\"data\":[{\"driver\":1}]}"), "drivers");
        assertInvalid("version", json("200 OK", "{\"data\":[{\"id\":\"sec_a\",\"version\":\"1\"}]}"), "secret", "list");
        assertInvalid("path", raw("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: created\ndata: {\"path\":[1]}\n\n"),
                "sandbox", "watch", ID);
        assertInvalid("id", json("200 OK", "{\"data\":[{\"id\":\"" + "x".repeat(100_000) + "\"}]}"), "sandbox", "list");
    }

    @Test
    void controlCharactersFromTheServerNeverReachTheTerminal() throws Exception {
        String esc = "\\u001b]0;owned\\u0007\\u001b[2J"; // JSON escapes: a title change and a screen clear
        String c1 = "\u009b31m\u202e"; // raw in the JSON text: CSI as one C1 character, a right-to-left override
        assertSafe(json("200 OK", "{\"data\":[{\"id\":\"" + ID + esc + "\",\"state\":\"run" + c1 + "\"}]}"), 0, "sandbox", "list");
        assertSafe(json("200 OK", "{\"data\":[{\"id\":\"" + ID + esc + "\",\"state\":\"run" + c1 + "\"}]}"), 0, "sandbox", "list", "--json");
        assertSafe(json("200 OK", "{\"id\":\"" + ID + "\",\"state\":\"running\",\"metadata\":{\"k\":\"" + esc + c1 + "\"}}"), 0, "sandbox", "get", ID);
        assertSafe(json("200 OK", "{\"id\":\"" + ID + esc + "\",\"state\":\"running\"}"), 0, "sandbox", "create");
        assertSafe(json("200 OK", "{\"data\":[{\"name\":\"f" + esc + c1 + "\",\"type\":\"file\"}]}"), 0, "sandbox", "ls", ID);
        assertSafe(json("200 OK", "{\"data\":[{\"id\":\"node_a\",\"url\":\"" + esc + "\",\"labels\":{\"k" + esc + "\":\"v" + c1 + "\"}}]}"), 0, "nodes");
        assertSafe(json("200 OK", "{\"data\":[{\"at\":\"t\",\"type\":\"x\",\"data\":{\"m\":\"" + esc + c1 + "\"}}]}"), 0, "sandbox", "events", ID);
        assertSafe(raw("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: created\ndata: {\"path\":\"/w/" + esc + c1 + "\"}\n\n"),
                0, "sandbox", "watch", ID);
        assertSafe(raw("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: created\ndata: {\"path\":\"/w/" + esc + c1 + "\"}\n\n"),
                0, "sandbox", "watch", "--json", ID);
        assertSafe(json("404 Not Found", "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"code\":\"x" + esc + "\",\"message\":\"gone" + esc + c1 + "\\nsecond line\"}}"),
                1, "sandbox", "get", ID);
        assertSafe(raw("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: error\ndata: {\"error\":{\"type\":\"api_error\",\"code\":\"c\",\"message\":\"" + esc + c1 + "\"}}\n\n"),
                1, "sandbox", "exec", ID, "--", "true");
    }

    /** One line of error naming the field as the answer's, exit 1. */
    private void assertInvalid(String field, Answer answer, String... args) throws Exception {
        Cli.Result r = assertOneLineError(answer, args);
        assertThat(r.err()).as(String.join(" ", args) + " → " + r).contains("(invalid_response)").contains("'" + field + "'");
    }

    /** The command ends as expected, and nothing it printed carries a control character a terminal would act on. */
    private void assertSafe(Answer answer, int code, String... args) throws Exception {
        Cli.Result r = run(answer, args);
        String what = String.join(" ", args) + " → " + r;
        assertThat(r.code()).as(what).isEqualTo(code);
        for (String printed : List.of(r.out(), r.err())) {
            assertThat(printed.chars().filter(c -> c != '\n' && (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x202e)).count())
                    .as("control characters in " + what).isZero();
        }
        assertThat(r.out() + r.err()).as(what).containsAnyOf("\\x1b", "\\u001b", "\\x9b", "\\u009b");
    }

    /** Runs the command against a server that gives {@code answer} to every request; one line of error, exit 1. */
    private Cli.Result assertOneLineError(Answer answer, String... args) throws Exception {
        Cli.Result r = run(answer, args);
        String what = String.join(" ", args) + " → " + r;
        assertThat(r.code()).as(what).isEqualTo(1);
        assertThat(r.err().strip()).as(what).startsWith("error: ").doesNotContain("\n").doesNotContain("Exception").doesNotContain("unexpected failure");
        return r;
    }

    private Cli.Result run(Answer answer, String... args) throws Exception {
        ScriptedSocketServer server = new ScriptedSocketServer(s -> serve(s, answer));
        servers.add(server);
        Files.createDirectories(home);
        Cli cli = new Cli(Map.of("PADDOCK_URL", server.url(), "PADDOCK_API_KEY", "pdk_hostile_test"), home);
        return CompletableFuture.supplyAsync(() -> cli.run(args)).get(120, TimeUnit.SECONDS);
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
