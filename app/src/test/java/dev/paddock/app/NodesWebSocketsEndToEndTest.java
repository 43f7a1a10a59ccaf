package dev.paddock.app;

import static dev.paddock.app.TerminalAndPortsEndToEndTest.catchCause;
import static dev.paddock.app.TerminalAndPortsEndToEndTest.startInSandbox;
import static dev.paddock.app.TerminalAndPortsEndToEndTest.writeScript;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.TerminalAndPortsEndToEndTest.TerminalClient;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Two {@code paddock serve} processes on one PostgreSQL: a terminal and a forwarded port of a sandbox node A holds
 * are used entirely through node B (the WebSocket relayed frame by frame with its close codes, the attach token and
 * the port's token URL checked by A, HTTP and WebSocket alike), and a refusal on A reaches the client through B as
 * A's answer. Real JVMs, bwrap and PostgreSQL on loopback.
 */
@Tag("bwrap")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NodesWebSocketsEndToEndTest {
    static final String KEY = "pdk_nodes_ws_test_admin_key_0123456789abcdef";
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    ServerNodes cluster;
    @RegisterExtension
    final TestExecutionExceptionHandler nodeLogs = ServerNodes.logsOnFailure(() -> cluster);
    PaddockClient apiA;
    PaddockClient apiB;
    String sandbox;

    @BeforeAll
    void start() throws Exception {
        cluster = new ServerNodes("pdnws", KEY);
        ServerProcess a = cluster.node(Map.of("PADDOCK_NODE_LABELS", "zone=a"));
        ServerProcess b = cluster.node(Map.of("PADDOCK_NODE_LABELS", "zone=b"));
        apiA = a.start();
        apiB = b.start();
        ObjectNode create = Json.object();
        create.putObject("placement").putObject("node_labels").put("zone", "a");
        sandbox = apiB.json("POST", "/v1/sandboxes", Map.of(), create).path("id").asString();
        assertThat(Files.isDirectory(a.dataDir.resolve("run").resolve(sandbox))).as("held by A").isTrue();
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) cluster.close();
    }

    static ObjectNode obj() {
        return Json.object();
    }

    @Test
    void aTerminalOnNodeAIsTypedIntoResizedAndReplacedThroughNodeB() throws Exception {
        ObjectNode body = obj().put("rows", 24).put("cols", 80);
        body.putArray("command").add("bash").add("--norc").add("-i");
        body.putObject("env").put("PS1", "$ ");
        JsonNode pty = apiB.json("POST", "/v1/sandboxes/" + sandbox + "/pty", Map.of(), body);
        String ptyId = pty.path("id").asString();

        TerminalClient viaB = TerminalClient.connect(apiB.baseUrl(), pty.path("attach_url").asString());
        await().atMost(Duration.ofSeconds(10)).until(() -> !viaB.controls.isEmpty());
        assertThat(viaB.controls.getFirst()).contains("\"type\":\"attached\"");
        viaB.type("echo hello-$((6*7))\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> viaB.output.toString().contains("hello-42"));
        viaB.control("{\"type\":\"resize\",\"rows\":40,\"cols\":132}");
        viaB.control("{\"type\":\"input\",\"data\":\"stty size\\n\"}");
        await().atMost(Duration.ofSeconds(10)).until(() -> viaB.output.toString().contains("40 132"));
        assertThat(apiA.get("/v1/sandboxes/" + sandbox + "/pty/" + ptyId).path("attached").asBoolean()).as("attached on A").isTrue();

        // a used token is refused by A, and B passes A's answer on
        String used = pty.path("attach_url").asString();
        Throwable refused = catchCause(() -> TerminalClient.connect(apiB.baseUrl(), used));
        assertThat(refused).isInstanceOf(WebSocketHandshakeException.class);
        HttpResponse<?> answer = ((WebSocketHandshakeException) refused).getResponse();
        assertThat(answer.statusCode()).isEqualTo(401);
        assertThat(String.valueOf(answer.body())).contains("invalid_terminal_token");

        // a second client attached on A itself replaces the one on B: A's close code reaches it through B
        TerminalClient onA = TerminalClient.connect(apiA.baseUrl(), attachUrl(apiA, ptyId));
        assertThat(viaB.closed.get(10, TimeUnit.SECONDS)).isEqualTo(4409);
        assertThat(viaB.controls).anySatisfy(t -> assertThat(t).contains("\"type\":\"replaced\""));
        assertThat(onA.closed).isNotDone();

        // a client on B that closes is detached on A
        TerminalClient again = TerminalClient.connect(apiB.baseUrl(), attachUrl(apiB, ptyId));
        assertThat(onA.closed.get(10, TimeUnit.SECONDS)).isEqualTo(4409);
        again.socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").join();
        assertThat(again.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
        await().atMost(Duration.ofSeconds(10)).until(() -> !apiA.get("/v1/sandboxes/" + sandbox + "/pty/" + ptyId).path("attached").asBoolean());

        // the command's end reaches a client on B as the exit message and a normal close
        TerminalClient last = TerminalClient.connect(apiB.baseUrl(), attachUrl(apiB, ptyId));
        last.type("exit 7\n");
        assertThat(last.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
        assertThat(last.controls).anySatisfy(t -> assertThat(t).contains("\"type\":\"exit\"").contains("\"exit_code\":7"));
    }

    private String attachUrl(PaddockClient node, String ptyId) {
        return node.json("POST", "/v1/sandboxes/" + sandbox + "/pty/" + ptyId + "/attach_tokens", Map.of(), null).path("attach_url").asString();
    }

    @Test
    void aPortOfASandboxOnNodeAIsReachedWithItsTokenUrlThroughNodeB() throws Exception {
        writeScript(apiB, sandbox, "ws_echo.py");
        startInSandbox(apiB, sandbox, "exec python3 /workspace/ws_echo.py 9000", 9000);
        startInSandbox(apiB, sandbox, "mkdir -p /tmp/site && echo served-from-a > /tmp/site/index.html && cd /tmp/site && exec python3 -m http.server 8000 --bind 127.0.0.1", 8000);
        String page = apiB.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 8000)).path("url").asString();

        HttpResponse<String> served = raw(apiB, page + "index.html");
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.body()).isEqualTo("served-from-a\n");
        assertThat(served.headers().firstValue("content-security-policy").orElse("")).contains("sandbox").doesNotContain("allow-same-origin");
        assertThat(served.headers().firstValue("referrer-policy")).contains("no-referrer");
        HttpResponse<String> forged = raw(apiB, page.replaceAll("/t/prt_[^/]+/", "/t/prt_forged/") + "index.html");
        assertThat(forged.statusCode()).isEqualTo(401);
        assertThat(forged.body()).contains("invalid_port_token");

        String echo = apiB.json("POST", "/v1/sandboxes/" + sandbox + "/ports", Map.of(), obj().put("port", 9000)).path("url").asString();
        TerminalClient ws = TerminalClient.connect(apiB.baseUrl(), echo + "echo");
        ws.control("round-trip-text");
        ws.type("round-trip-binary");
        String large = "x".repeat(200_000); // several frames between the nodes
        ws.control(large);
        await().atMost(Duration.ofSeconds(10)).until(() -> ws.controls.contains("round-trip-text") && ws.controls.contains(large)
                && ws.output.toString().contains("round-trip-binary"));
        ws.socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
        assertThat(ws.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
    }

    private static HttpResponse<String> raw(PaddockClient node, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + path)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
