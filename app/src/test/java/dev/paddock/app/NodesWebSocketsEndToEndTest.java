package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import dev.paddock.store.StoreLocation;
import dev.paddock.store.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
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
    final List<ServerProcess> servers = new ArrayList<>();
    PaddockClient apiA;
    PaddockClient apiB;
    String sandbox;

    @BeforeAll
    void start() throws Exception {
        StoreLocation.Postgres db = TestPostgres.freshDatabase();
        for (String zone : List.of("a", "b")) {
            ServerProcess s = new ServerProcess(Files.createTempDirectory(Path.of("/tmp"), "pdnws"), KEY, TestPostgres.storeUrl(db));
            s.env.put("PADDOCK_NODE_LABELS", "zone=" + zone);
            s.startTimeout = Duration.ofSeconds(120); // two JVMs start together on a shared machine
            servers.add(s);
        }
        apiA = servers.get(0).start();
        apiB = servers.get(1).start();
        ObjectNode create = Json.object();
        create.putObject("placement").putObject("node_labels").put("zone", "a");
        sandbox = apiB.json("POST", "/v1/sandboxes", Map.of(), create).path("id").asString();
        assertThat(Files.isDirectory(servers.get(0).dataDir.resolve("run").resolve(sandbox))).as("held by A").isTrue();
    }

    @AfterAll
    void stop() throws Exception {
        for (ServerProcess s : servers) {
            s.stop();
            try (BwrapDriver driver = new BwrapDriver(BwrapConfig.defaults(s.dataDir))) {
                driver.list().forEach(driver::destroy); // a stopped server leaves its sandboxes running
            }
            BwrapServer.removeDataDir(s.dataDir);
            Files.deleteIfExists(s.log);
        }
    }

    static ObjectNode obj() {
        return Json.object();
    }

    /** A WebSocket client that collects what arrives: binary frames as text, text frames as messages, the close code. */
    static final class Client implements WebSocket.Listener {
        final StringBuffer binary = new StringBuffer();
        final List<String> texts = new CopyOnWriteArrayList<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        WebSocket socket;

        static Client connect(PaddockClient node, String path) {
            Client c = new Client();
            try {
                c.socket = HTTP.newWebSocketBuilder().buildAsync(URI.create(node.baseUrl().replace("http://", "ws://") + path), c)
                        .get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new CompletionException(e.getCause());
            } catch (InterruptedException | TimeoutException e) {
                throw new IllegalStateException("no WebSocket handshake with " + path, e);
            }
            return c;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            binary.append(new String(b, StandardCharsets.UTF_8));
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                texts.add(text.toString());
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

        void sendBinary(String s) {
            socket.sendBinary(ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)), true).join();
        }

        void sendText(String s) {
            socket.sendText(s, true).join();
        }
    }

    @Test
    void aTerminalOnNodeAIsTypedIntoResizedAndReplacedThroughNodeB() throws Exception {
        ObjectNode body = obj().put("rows", 24).put("cols", 80);
        body.putArray("command").add("bash").add("--norc").add("-i");
        body.putObject("env").put("PS1", "$ ");
        JsonNode pty = apiB.json("POST", "/v1/sandboxes/" + sandbox + "/pty", Map.of(), body);
        String ptyId = pty.path("id").asString();

        Client viaB = Client.connect(apiB, pty.path("attach_url").asString());
        await().atMost(Duration.ofSeconds(10)).until(() -> !viaB.texts.isEmpty());
        assertThat(viaB.texts.getFirst()).contains("\"type\":\"attached\"");
        viaB.sendBinary("echo hello-$((6*7))\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> viaB.binary.toString().contains("hello-42"));
        viaB.sendText("{\"type\":\"resize\",\"rows\":40,\"cols\":132}");
        viaB.sendText("{\"type\":\"input\",\"data\":\"stty size\\n\"}");
        await().atMost(Duration.ofSeconds(10)).until(() -> viaB.binary.toString().contains("40 132"));
        assertThat(apiA.get("/v1/sandboxes/" + sandbox + "/pty/" + ptyId).path("attached").asBoolean()).as("attached on A").isTrue();

        // a used token is refused by A, and B passes A's answer on
        String used = pty.path("attach_url").asString();
        Throwable refused = catchCause(() -> Client.connect(apiB, used));
        assertThat(refused).isInstanceOf(WebSocketHandshakeException.class);
        HttpResponse<?> answer = ((WebSocketHandshakeException) refused).getResponse();
        assertThat(answer.statusCode()).isEqualTo(401);
        assertThat(String.valueOf(answer.body())).contains("invalid_terminal_token");

        // a second client attached on A itself replaces the one on B: A's close code reaches it through B
        Client onA = Client.connect(apiA, attachUrl(apiA, ptyId));
        assertThat(viaB.closed.get(10, TimeUnit.SECONDS)).isEqualTo(4409);
        assertThat(viaB.texts).anySatisfy(t -> assertThat(t).contains("\"type\":\"replaced\""));
        assertThat(onA.closed).isNotDone();

        // a client on B that closes is detached on A
        Client again = Client.connect(apiB, attachUrl(apiB, ptyId));
        assertThat(onA.closed.get(10, TimeUnit.SECONDS)).isEqualTo(4409);
        again.socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").join();
        assertThat(again.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
        await().atMost(Duration.ofSeconds(10)).until(() -> !apiA.get("/v1/sandboxes/" + sandbox + "/pty/" + ptyId).path("attached").asBoolean());

        // the command's end reaches a client on B as the exit message and a normal close
        Client last = Client.connect(apiB, attachUrl(apiB, ptyId));
        last.sendBinary("exit 7\n");
        assertThat(last.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
        assertThat(last.texts).anySatisfy(t -> assertThat(t).contains("\"type\":\"exit\"").contains("\"exit_code\":7"));
    }

    private String attachUrl(PaddockClient node, String ptyId) {
        return node.json("POST", "/v1/sandboxes/" + sandbox + "/pty/" + ptyId + "/attach_tokens", Map.of(), null).path("attach_url").asString();
    }

    @Test
    void aPortOfASandboxOnNodeAIsReachedWithItsTokenUrlThroughNodeB() throws Exception {
        writeScript("ws_echo.py");
        startInSandbox("exec python3 /workspace/ws_echo.py 9000", 9000);
        startInSandbox("mkdir -p /tmp/site && echo served-from-a > /tmp/site/index.html && cd /tmp/site && exec python3 -m http.server 8000 --bind 127.0.0.1", 8000);
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
        Client ws = Client.connect(apiB, echo + "echo");
        ws.sendText("round-trip-text");
        ws.sendBinary("round-trip-binary");
        String large = "x".repeat(200_000); // several frames between the nodes
        ws.sendText(large);
        await().atMost(Duration.ofSeconds(10)).until(() -> ws.texts.contains("round-trip-text") && ws.texts.contains(large)
                && ws.binary.toString().contains("round-trip-binary"));
        ws.socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
        assertThat(ws.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1000);
    }

    private static HttpResponse<String> raw(PaddockClient node, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Throwable catchCause(Runnable r) {
        try {
            r.run();
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a refusal");
    }

    private void writeScript(String name) throws IOException {
        try (InputStream in = NodesWebSocketsEndToEndTest.class.getResourceAsStream("/ports/" + name)) {
            String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            ObjectNode exec = obj().put("command", "cat > /workspace/" + name).put("stdin", script);
            assertThat(apiB.json("POST", "/v1/sandboxes/" + sandbox + "/exec", Map.of(), exec).path("exit_code").asInt()).isZero();
        }
    }

    private void startInSandbox(String command, int port) {
        apiB.json("POST", "/v1/sandboxes/" + sandbox + "/processes", Map.of(), obj().put("command", command).put("timeout_seconds", 600));
        String probe = "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + port + "))' && echo up";
        await().atMost(Duration.ofSeconds(20)).until(() -> apiB.json("POST", "/v1/sandboxes/" + sandbox + "/exec", Map.of(),
                obj().put("command", probe)).path("stdout").asString().contains("up"));
    }
}
