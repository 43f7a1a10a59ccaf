package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.TerminalAndPortsEndToEndTest.TerminalClient;
import dev.paddock.app.client.Json;
import dev.paddock.host.terminal.TerminalSessions;
import java.io.InputStream;
import java.net.URI;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Terminals and forwarded ports against hostile clients, on real bubblewrap sandboxes: an attach token is used once
 * even by two clients racing with it, and only for its own terminal; a foreign tenant finds nothing; malformed control
 * frames are answered on the socket, which goes on working; closing a port ends the WebSockets opened through it.
 */
@Tag("bwrap")
class TerminalAndPortsAttackTest extends OneSandboxServerTest {
    static ObjectNode obj() {
        return Json.object();
    }

    private static JsonNode terminal() {
        ObjectNode body = obj();
        body.putArray("command").add("cat");
        return api.json("POST", "/v1/sandboxes/" + sandbox + "/pty", Map.of(), body);
    }

    /** The attach's outcome: the handshake's refusal, or a socket that said it was attached. */
    private static CompletableFuture<Boolean> attach(String url) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                TerminalClient c = connect(url);
                await().atMost(Duration.ofSeconds(10)).until(() -> !c.controls.isEmpty());
                return c.controls.getFirst().contains("\"attached\"");
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    @Test
    void anAttachTokenServesOneOfTwoRacingClientsAndOnlyItsOwnTerminal() throws Exception {
        JsonNode pty = terminal();
        String url = pty.path("attach_url").asString();
        List<CompletableFuture<Boolean>> racing = new ArrayList<>();
        for (int i = 0; i < 4; i++) racing.add(attach(url));
        long attached = 0;
        for (CompletableFuture<Boolean> r : racing) if (r.get(30, TimeUnit.SECONDS)) attached++;
        assertThat(attached).as("clients attached with one token").isEqualTo(1);

        // a fresh token of this terminal, presented for another terminal or another sandbox, is refused and used up
        JsonNode other = terminal();
        String token = api.json("POST", "/v1/sandboxes/" + sandbox + "/pty/" + pty.path("id").asString() + "/attach_tokens", Map.of(), null)
                .path("attach_token").asString();
        String otherSandbox = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
        assertThat(attach("/v1/sandboxes/" + sandbox + "/pty/" + other.path("id").asString() + "/attach?token=" + token).get(30, TimeUnit.SECONDS)).isFalse();
        assertThat(attach("/v1/sandboxes/" + otherSandbox + "/pty/" + pty.path("id").asString() + "/attach?token=" + token).get(30, TimeUnit.SECONDS)).isFalse();
        assertThat(attach(url.substring(0, url.indexOf('?')) + "?token=" + token).get(30, TimeUnit.SECONDS)).as("used up by the wrong attempts").isFalse();

        // another tenant: its key finds neither the terminals nor a way to mint tokens for them
        String foreignKey = api.json("POST", "/v1/api_keys", Map.of(), obj().put("name", "foreign-pty").put("admin", true)
                .put("tenant_id", "tenant-pty-attack")).path("key").asString();
        assertThat(status(foreignKey, "POST", "/v1/sandboxes/" + sandbox + "/pty/" + pty.path("id").asString() + "/attach_tokens")).isEqualTo(404);
        assertThat(status(foreignKey, "POST", "/v1/sandboxes/" + sandbox + "/pty")).isEqualTo(404);
        assertThat(status(foreignKey, "GET", "/v1/sandboxes/" + sandbox + "/pty")).isEqualTo(404);
    }

    @Test
    void mintingTokensRevokesTheOldestUnusedOnesAndRacingOpensStayWithinTheLimit() throws Exception {
        JsonNode pty = terminal();
        String tokens = "/v1/sandboxes/" + sandbox + "/pty/" + pty.path("id").asString() + "/attach_tokens";
        String attach = pty.path("attach_url").asString();
        String base = attach.substring(0, attach.indexOf('?')) + "?token=";
        List<String> minted = new ArrayList<>();
        for (int i = 0; i < TerminalSessions.MAX_TOKENS_PER_TERMINAL + 1; i++) {
            minted.add(api.json("POST", tokens, Map.of(), null).path("attach_token").asString());
        }
        assertThat(attach(base + minted.getFirst()).get(30, TimeUnit.SECONDS)).as("the oldest was revoked").isFalse();
        assertThat(attach(base + minted.getLast()).get(30, TimeUnit.SECONDS)).as("the newest works").isTrue();

        // opens racing each other on a fresh sandbox: never more terminals than the limit
        String fresh = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
        List<CompletableFuture<Integer>> opens = new ArrayList<>();
        for (int i = 0; i < TerminalSessions.MAX_PER_SANDBOX + 8; i++) {
            opens.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return status(server.app.createdAdminKey().orElseThrow(), "POST", "/v1/sandboxes/" + fresh + "/pty");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        long created = 0, refused = 0;
        for (CompletableFuture<Integer> o : opens) {
            int code = o.get(60, TimeUnit.SECONDS);
            if (code == 201 || code == 200) created++;
            else if (code == 409) refused++;
        }
        assertThat(created).isEqualTo(TerminalSessions.MAX_PER_SANDBOX);
        assertThat(refused).isEqualTo(8);
        assertThat(api.json("GET", "/v1/sandboxes/" + fresh + "/pty", Map.of(), null).path("data").size()).isEqualTo(TerminalSessions.MAX_PER_SANDBOX);
    }

    @Test
    void malformedControlFramesAreAnsweredOnTheSocketWhichGoesOnWorking() throws Exception {
        JsonNode pty = terminal();
        TerminalClient c = connect(pty.path("attach_url").asString());
        await().atMost(Duration.ofSeconds(10)).until(() -> !c.controls.isEmpty());
        List<String> bad = List.of("{", "[]", "null", "{\"type\":\"resize\",\"rows\":0,\"cols\":80}", "{\"type\":\"resize\",\"rows\":1e99,\"cols\":80}",
                "{\"type\":\"resize\",\"rows\":\"24\",\"cols\":80}", "{\"type\":\"input\"}", "{\"type\":\"input\",\"data\":7}", "{\"type\":\"explode\"}",
                "{\"type\":\"resize\",\"rows\":99999999999999999999,\"cols\":80}");
        for (String frame : bad) c.control(frame);
        await().atMost(Duration.ofSeconds(20)).until(() -> c.controls.stream().filter(m -> m.contains("\"type\":\"error\"")).count() == bad.size());
        assertThat(c.controls).filteredOn(m -> m.contains("\"type\":\"error\"")).allSatisfy(m -> assertThat(m).contains("\"code\":\"")
                .doesNotContain("Exception"));
        c.control("{\"type\":\"input\",\"data\":\"still-" + "working\\n\"}");
        await().atMost(Duration.ofSeconds(10)).until(() -> c.output.toString().contains("still-working"));
        c.type("x".repeat(60_000) + "\n"); // a large input frame (under the 64 KiB cap) goes through too
        c.type("after-large\n");
        await().atMost(Duration.ofSeconds(20)).until(() -> c.output.toString().contains("after-large"));
        c.socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
    }

    @Test
    void closingAPortEndsTheWebSocketsOpenedThroughIt() throws Exception {
        try (InputStream in = TerminalAndPortsAttackTest.class.getResourceAsStream("/ports/ws_echo.py")) {
            ObjectNode exec = obj().put("command", "cat > /workspace/ws_echo.py").put("stdin", new String(in.readAllBytes(), StandardCharsets.UTF_8));
            assertThat(api.json("POST", "/v1/sandboxes/" + sandbox + "/exec", Map.of(), exec).path("exit_code").asInt()).isZero();
        }
        api.json("POST", "/v1/sandboxes/" + sandbox + "/processes", Map.of(), obj().put("command", "exec python3 /workspace/ws_echo.py 9100")
                .put("timeout_seconds", 600));
        String probe = "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 9100))' && echo up";
        await().atMost(Duration.ofSeconds(20)).until(() -> api.json("POST", "/v1/sandboxes/" + sandbox + "/exec", Map.of(),
                obj().put("command", probe)).path("stdout").asString().contains("up"));
        String url = api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 9100)).path("url").asString();
        TerminalClient ws = connect(url + "echo");
        ws.control("before-close");
        await().atMost(Duration.ofSeconds(10)).until(() -> ws.controls.contains("before-close"));

        api.call("DELETE", "/v1/sandboxes/" + sandbox + "/ports/9100", Map.of(), null);
        await().atMost(Duration.ofSeconds(20)).until(() -> ws.closed.isDone());
        assertThat(HTTP.send(java.net.http.HttpRequest.newBuilder(URI.create(server.app.url() + url)).build(),
                java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(401);
    }

    @Test
    void hostileBodiesOfPortsAndTerminalsAreTyped4xxAnswers() throws Exception {
        String key = server.app.createdAdminKey().orElseThrow();
        for (String body : List.of("{\"port\":3000000000}", "{\"port\":-1}", "{\"port\":\"80\"}", "{\"port\":1.5}", "{\"port\":null}", "{}", "[]",
                "{\"port\":{\"n\":1}}", "{\"port\":99999999999999999999}")) {
            var r = post(key, "/v1/sandboxes/" + sandbox + "/ports", body);
            assertThat(r.statusCode()).as("%s: %s", body, r.body()).isBetween(400, 499);
            assertThat(r.body()).as(body).contains("\"code\":\"");
        }
        for (String body : List.of("{\"rows\":3000000000}", "{\"rows\":0}", "{\"cols\":\"80\"}", "{\"command\":[]}", "{\"command\":\"bash\"}",
                "{\"command\":[7]}", "{\"env\":{\"1A\":\"x\"}}", "{\"env\":[]}", "{\"cwd\":\"relative\"}", "[]", "7")) {
            var r = post(key, "/v1/sandboxes/" + sandbox + "/pty", body);
            assertThat(r.statusCode()).as("%s: %s", body, r.body()).isBetween(400, 499);
            assertThat(r.body()).as(body).contains("\"code\":\"");
        }
    }

    private static java.net.http.HttpResponse<String> post(String key, String path, String body) throws Exception {
        return HTTP.send(java.net.http.HttpRequest.newBuilder(URI.create(server.app.url() + path)).header("x-api-key", key)
                .header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    private static int status(String key, String method, String path) throws Exception {
        var b = java.net.http.HttpRequest.newBuilder(URI.create(server.app.url() + path)).header("x-api-key", key)
                .method(method, java.net.http.HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json");
        return HTTP.send(b.build(), java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
