package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.access.ApiKeys;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Terminals and forwarded ports through the whole stack on real bubblewrap sandboxes: bash on a pty over the
 * WebSocket (echo, resize, exit code, reconnect within the grace period sees what was missed), and servers on the
 * sandbox's loopback reached through the port URL with its token (HTTP and a WebSocket echo), refused without.
 */
@Tag("bwrap")
class TerminalAndPortsEndToEndTest extends OneSandboxServerTest {
    static ObjectNode obj() {
        return Json.object();
    }

    /** A terminal client on the JDK's WebSocket: output bytes and control messages, collected. */
    static final class TerminalClient implements WebSocket.Listener {
        final StringBuffer output = new StringBuffer();
        final List<String> controls = new CopyOnWriteArrayList<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        WebSocket socket;

        /** Connects to {@code path} on the server at {@code baseUrl} (http://…). */
        static TerminalClient connect(String baseUrl, String path) {
            TerminalClient c = new TerminalClient();
            c.socket = HTTP.newWebSocketBuilder().buildAsync(URI.create(baseUrl.replace("http://", "ws://") + path), c)
                    .orTimeout(30, TimeUnit.SECONDS).join();
            return c;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            output.append(new String(b, StandardCharsets.UTF_8));
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                controls.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            closed.complete(status);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }

        void type(String s) {
            socket.sendBinary(ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)), true).join();
        }

        void control(String json) {
            socket.sendText(json, true).join();
        }
    }

    @Test
    void bashOnATerminalEchoesResizesReconnectsAndReportsItsExit() throws Exception {
        ObjectNode body = obj().put("rows", 24).put("cols", 80);
        body.putArray("command").add("bash").add("--norc").add("-i");
        body.putObject("env").put("PS1", "$ ");
        JsonNode pty = api.json("POST", "/v1/sandboxes/" + sandbox + "/pty", Map.of(), body);
        assertThat(pty.path("id").asString()).startsWith("pty_");
        assertThat(pty.path("status").asString()).isEqualTo("running");
        String ptyId = pty.path("id").asString();

        TerminalClient first = connect(pty.path("attach_url").asString());
        first.type("echo hello-$((6*7))\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> first.output.toString().contains("hello-42"));
        assertThat(first.controls.getFirst()).contains("\"type\":\"attached\"");
        first.type("stty size\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> first.output.toString().contains("24 80"));
        first.control("{\"type\":\"resize\",\"rows\":40,\"cols\":132}");
        first.control("{\"type\":\"input\",\"data\":\"stty size\\n\"}");
        await().atMost(Duration.ofSeconds(10)).until(() -> first.output.toString().contains("40 132"));

        // leave while a command still writes; what it writes meanwhile waits for the next client
        first.type("sleep 1; echo written-while-away-$((2+3)); touch /workspace/.written-while-away\n");
        first.socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").join();
        first.closed.get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> !api.get("/v1/sandboxes/" + sandbox + "/pty/" + ptyId).path("attached").asBoolean());
        assertThat(first.output.toString()).doesNotContain("written-while-away-5");
        // the line was written while nobody was attached (the file comes after it)
        await().atMost(Duration.ofSeconds(20)).until(() -> byKeyStatus("/v1/sandboxes/" + sandbox + "/files/stat?path=.written-while-away") == 200);

        JsonNode token = api.json("POST", "/v1/sandboxes/" + sandbox + "/pty/" + ptyId + "/attach_tokens", Map.of(), null);
        TerminalClient second = connect(token.path("attach_url").asString());
        await().atMost(Duration.ofSeconds(10)).until(() -> second.output.toString().contains("written-while-away-5"));
        second.type("exit 7\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> second.controls.stream().anyMatch(c -> c.contains("\"type\":\"exit\"")));
        assertThat(second.controls).anySatisfy(c -> assertThat(c).contains("\"exit_code\":7"));
        assertThat(api.get("/v1/sandboxes/" + sandbox + "/pty/" + ptyId).path("exit_code").asInt()).isEqualTo(7);

        // an attach token works once
        String used = token.path("attach_url").asString();
        assertThatThrownBy(() -> connect(used)).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(WebSocketHandshakeException.class);
    }

    @Test
    void anAttachWithoutAValidTokenIsRefusedAndAPlainGetSaysWhatToDo() throws Exception {
        JsonNode pty = api.json("POST", "/v1/sandboxes/" + sandbox + "/pty", Map.of(), obj());
        String path = "/v1/sandboxes/" + sandbox + "/pty/" + pty.path("id").asString() + "/attach";
        assertThatThrownBy(() -> connect(path + "?token=ptt_forged")).hasCauseInstanceOf(WebSocketHandshakeException.class);
        assertThatThrownBy(() -> connect(path)).hasCauseInstanceOf(WebSocketHandshakeException.class);
        WebSocketHandshakeException refused = (WebSocketHandshakeException) catchCause(() -> connect(path + "?token=ptt_forged"));
        assertThat(refused.getResponse().statusCode()).isEqualTo(401);
        assertThat(raw("GET", path, null).body()).contains("websocket_upgrade_required");
        api.call("DELETE", "/v1/sandboxes/" + sandbox + "/pty/" + pty.path("id").asString(), Map.of(), null);
        assertThat(api.get("/v1/sandboxes/" + sandbox + "/pty").path("data").toString()).doesNotContain(pty.path("id").asString());
    }

    @Test
    void anHttpServerInTheSandboxIsReachedWithThePortTokenAndRefusedWithout() throws Exception {
        startInSandbox("mkdir -p /tmp/site && echo served-from-the-sandbox > /tmp/site/index.html && cd /tmp/site && exec python3 -m http.server 8000 --bind 127.0.0.1", 8000);
        JsonNode port = api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8000));
        String url = port.path("url").asString();
        assertThat(url).startsWith("/v1/sandboxes/" + sandbox + "/ports/8000/t/prt_").endsWith("/");

        HttpResponse<String> page = raw("GET", url + "index.html", null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).isEqualTo("served-from-the-sandbox\n");
        assertThat(page.headers().firstValue("content-security-policy").orElse("")).contains("sandbox").doesNotContain("allow-same-origin");
        assertThat(page.headers().firstValue("referrer-policy")).contains("no-referrer");

        HttpResponse<String> forged = raw("GET", url.replace(port.path("token").asString(), "prt_forged") + "index.html", null);
        assertThat(forged.statusCode()).isEqualTo(401);
        assertThat(forged.body()).contains("invalid_port_token");
        assertThat(raw("GET", "/v1/sandboxes/" + sandbox + "/ports/8000/proxy/index.html", null).statusCode()).isEqualTo(401);
        HttpResponse<String> byKey = HTTP.send(HttpRequest.newBuilder(URI.create(server.app.url() + "/v1/sandboxes/" + sandbox + "/ports/8000/proxy/index.html"))
                .header("x-api-key", server.app.createdAdminKey().orElseThrow()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(byKey.body()).isEqualTo("served-from-the-sandbox\n");
        assertThat(api.get("/v1/sandboxes/" + sandbox + "/ports").path("data").get(0).path("port").asInt()).isEqualTo(8000);

        // a port that is not open answers port_not_open; a closed port's token stops working
        assertThat(byKeyStatus("/v1/sandboxes/" + sandbox + "/ports/8001/proxy/")).isEqualTo(404);
        api.call("DELETE", "/v1/sandboxes/" + sandbox + "/ports/8000", Map.of(), null);
        assertThat(raw("GET", url + "index.html", null).statusCode()).isEqualTo(401);
    }

    @Test
    void aPortOpenedWithAKeyThatIsRevokedLaterStopsAnsweringItsToken() throws Exception {
        startInSandbox("mkdir -p /tmp/rev && echo revoked-port > /tmp/rev/index.html && cd /tmp/rev && exec python3 -m http.server 8200 --bind 127.0.0.1", 8200);
        JsonNode created = api.json("POST", "/v1/api_keys", Map.of(), obj().put("name", "port-opener").put("tenant_id", ApiKeys.OPERATOR_TENANT));
        PaddockClient opener = new PaddockClient(server.app.url(), created.path("key").asString());
        String url = opener.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8200)).path("url").asString();
        assertThat(raw("GET", url + "index.html", null).body()).isEqualTo("revoked-port\n");

        api.call("DELETE", "/v1/api_keys/" + created.path("id").asString(), Map.of(), null);
        HttpResponse<String> after = raw("GET", url + "index.html", null);
        assertThat(after.statusCode()).isEqualTo(401);
        assertThat(after.body()).contains("invalid_port_token").contains("revoked");
        assertThat(api.get("/v1/sandboxes/" + sandbox + "/ports").path("data").toString()).as("the port was closed").doesNotContain("8200");
    }

    @Test
    void aServersHostileHeadersDoNotReachTheBrowserAndPaddocksCredentialsDoNotReachTheServer() throws Exception {
        writeScript("hostile_http.py");
        startInSandbox("exec python3 /workspace/hostile_http.py 8100", 8100);
        String url = api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8100)).path("url").asString();
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(server.app.url() + url + "some/path?q=1"))
                .header("Cookie", "console=secret").header("x-api-key", "not-for-the-sandbox").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("chunked-body-ok");
        assertThat(r.headers().map().keySet()).doesNotContain("set-cookie", "x-hop", "strict-transport-security", "clear-site-data");
        assertThat(r.headers().firstValue("x-seen-cookie")).contains("none");
        assertThat(r.headers().firstValue("x-seen-api-key")).contains("none");
        assertThat(r.headers().firstValue("x-seen-path")).contains("/some/path?q=1");
        HttpResponse<String> posted = raw("POST", url + "post", "payload-123");
        assertThat(posted.statusCode()).isEqualTo(201);
        assertThat(posted.body()).isEqualTo("echo:payload-123");
    }

    @Test
    void aPortWithNothingListeningAnswersPortNotListening() throws Exception {
        String url = api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8999)).path("url").asString();
        HttpResponse<String> r = raw("GET", url, null);
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).contains("port_not_listening");
        JsonNode bad = PaddockClient.parse(HTTP.send(HttpRequest.newBuilder(URI.create(server.app.url() + "/v1/sandboxes/" + sandbox + "/ports"))
                .header("x-api-key", server.app.createdAdminKey().orElseThrow()).POST(HttpRequest.BodyPublishers.ofString("{\"port\":70000}")).build(),
                HttpResponse.BodyHandlers.ofByteArray()).body());
        assertThat(bad.path("error").path("code").asString()).isEqualTo("invalid_port");
    }

    @Test
    void aServerThatClosesOnTheRequestIsABadGatewayNeverAnInternalError() throws Exception {
        writeScript("rude_http.py");
        startInSandbox("exec python3 /workspace/rude_http.py close 8300", 8300);
        startInSandbox("exec python3 /workspace/rude_http.py early 8301", 8301);
        String closing = api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8300)).path("url").asString();
        String early = api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8301)).path("url").asString();
        String big = "x".repeat(1 << 20);
        for (int i = 0; i < 4; i++) {
            for (String body : java.util.Arrays.asList(null, big)) {
                HttpResponse<String> r = raw(body == null ? "GET" : "POST", closing, body);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
                assertThat(r.body()).contains("upstream_response_invalid");
            }
            // the answer may come before the body was sent; whether it can still be read depends on timing
            HttpResponse<String> answered = raw("POST", early, big);
            if (answered.statusCode() == 413) assertThat(answered.body()).isEqualTo("too big!");
            else assertThat(answered.body()).as("status %d", answered.statusCode()).contains("upstream_response_invalid");
        }
    }

    @Test
    void anAnswerIsPassedOnWithoutHeadersOfTheServersOwn() throws Exception {
        writeScript("rude_http.py");
        startInSandbox("exec python3 /workspace/rude_http.py bare 8302", 8302);
        String url = api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8302)).path("url").asString();
        HttpResponse<String> r = raw("GET", url, null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("bare");
        assertThat(r.headers().firstValue("Content-Type")).as("none was sent, none is made up").isEmpty();
        assertThat(r.headers().allValues("Date")).as("one Date").hasSize(1);
    }

    @Test
    void theOpenPortsOfAnEndedSandboxAreForgottenAndItsTokenStopsWorking() throws Exception {
        String other = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
        String url = api.json("POST", "/v1/sandboxes/" + other + "/ports", Map.of(), obj().put("port", 8100)).path("url").asString();
        api.call("DELETE", "/v1/sandboxes/" + other, Map.of(), null);

        api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8101));
        assertThat(api.json("GET", "/v1/sandboxes/" + other + "/ports", Map.of(), null).path("data")).as("no record outlives its sandbox").isEmpty();
        assertThat(raw("GET", url, null).statusCode()).isEqualTo(401);
        api.call("DELETE", "/v1/sandboxes/" + sandbox + "/ports/8101", Map.of(), null);
    }

    @Test
    void aWebSocketServerInTheSandboxRoundTripsThroughTheProxy() throws Exception {
        writeScript("ws_echo.py");
        startInSandbox("exec python3 /workspace/ws_echo.py 9000", 9000);
        String url = api.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 9000)).path("url").asString();
        TerminalClient ws = connect(url + "echo");
        ws.control("round-trip-text");
        ws.type("round-trip-binary");
        await().atMost(Duration.ofSeconds(10)).until(() -> ws.controls.contains("round-trip-text") && ws.output.toString().contains("round-trip-binary"));
        ws.socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
        assertThat(ws.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
    }

    private static int byKeyStatus(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.app.url() + path)).header("x-api-key", server.app.createdAdminKey().orElseThrow()).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static HttpResponse<String> raw(String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.app.url() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The cause of the failure {@code r} must end in (a refused WebSocket handshake, say). */
    static Throwable catchCause(Runnable r) {
        try {
            r.run();
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a refusal");
    }

    private static void writeScript(String name) throws IOException {
        writeScript(api, sandbox, name);
    }

    private static void startInSandbox(String command, int port) {
        startInSandbox(api, sandbox, command, port);
    }

    /** Puts the script {@code name} of the test resources' ports folder into the sandbox's workspace. */
    static void writeScript(PaddockClient api, String sandbox, String name) throws IOException {
        try (InputStream in = TerminalAndPortsEndToEndTest.class.getResourceAsStream("/ports/" + name)) {
            String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            ObjectNode exec = obj().put("command", "cat > /workspace/" + name).put("stdin", script);
            assertThat(api.json("POST", "/v1/sandboxes/" + sandbox + "/exec", Map.of(), exec).path("exit_code").asInt()).isZero();
        }
    }

    /** Starts {@code command} in the sandbox as a background process and waits until it listens on {@code port}. */
    static void startInSandbox(PaddockClient api, String sandbox, String command, int port) {
        api.json("POST", "/v1/sandboxes/" + sandbox + "/processes", Map.of(), obj().put("command", command).put("timeout_seconds", 600));
        String probe = "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + port + "))' && echo up";
        await().atMost(Duration.ofSeconds(20)).until(() -> api.json("POST", "/v1/sandboxes/" + sandbox + "/exec", Map.of(),
                obj().put("command", probe)).path("stdout").asString().contains("up"));
    }
}
