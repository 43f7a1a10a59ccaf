package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Managed Agents session on a {@code cloud} environment gets the environment's {@code networking} as its sandbox's
 * network policy, enforced by the egress proxy like any sandbox: with real bwrap, the real proxy and a real upstream on
 * loopback (reachable only through the test switch {@code egress_test_loopback_ports}), driven by a scripted model
 * whose one tool call is a bash command. The same command leaves a file in {@code /mnt/session/outputs}, read back
 * through the sandbox outputs API after the session's sandbox ended.
 */
@Tag("bwrap")
class SessionNetworkEndToEndTest {
    static final String ALLOWED = "/session-allowed";
    static final String BLOCKED = "/session-blocked";

    EgressUpstreams up;
    ToolCallingModel model;
    Path dataDir;
    PaddockApp app;
    PaddockClient api;

    @BeforeEach
    void start() throws IOException {
        up = new EgressUpstreams();
        int h = up.httpPort();
        model = new ToolCallingModel("curl --noproxy '' -sS --max-time 20 -o /dev/null -w 'allowed=%{http_code}\\n' http://127.0.0.1:" + h + ALLOWED + "; "
                + "curl --noproxy '' -sS --max-time 20 -o /dev/null -w 'blocked=%{http_code}\\n' http://localhost:" + h + BLOCKED + "; "
                + "echo from-the-session > /mnt/session/outputs/result.txt");
        // loopback names are in the sandbox's NO_PROXY (its own services); --noproxy '' sends these through the proxy anyway
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pn");
        ServeSettings settings = ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "bwrap",
                "egress_test_loopback_ports", String.valueOf(h), "model_base_url", model.baseUrl(), "model_api_key", "test-model-key"),
                Map.of(), null, dataDir);
        app = PaddockApp.start(settings);
        api = new PaddockClient(app.url(), app.createdAdminKey().orElseThrow());
    }

    @AfterEach
    void stop() throws Exception {
        try {
            app.close();
        } finally {
            up.close();
            model.close();
            var bwrap = new dev.paddock.driver.bwrap.BwrapDriver(dev.paddock.driver.bwrap.BwrapConfig.defaults(dataDir));
            bwrap.list().forEach(bwrap::destroy); // sandboxes outlive a server by design; a test leaves none behind
            BwrapServer.removeDataDir(dataDir);
        }
    }

    @Test
    void aLimitedEnvironmentsSessionReachesOnlyItsAllowedHostsAndLeavesOutputs() {
        ObjectNode env = obj().put("name", "limited-env");
        env.putObject("config").put("type", "cloud").putObject("networking").put("type", "limited")
                .putArray("allowed_hosts").add("127.0.0.1:" + up.httpPort());
        String sessionId = runOneToolCall(env);

        assertThat(model.toolResults).hasSize(1);
        assertThat(model.toolResults.getFirst()).as("the bash tool's output").contains("allowed=200").contains("blocked=403");
        assertThat(up.reached(ALLOWED)).isTrue();
        assertThat(up.reached(BLOCKED)).isFalse();

        String sandboxId = api.get("/v1/sessions/" + sessionId).path("paddock_sandbox_id").asString();
        JsonNode sandbox = api.get("/v1/sandboxes/" + sandboxId);
        assertThat(sandbox.path("network").path("type").asString()).isEqualTo("limited");
        assertThat(sandbox.path("network").path("allowed_hosts").toString()).contains("127.0.0.1:" + up.httpPort());
        List<String> decisions = new ArrayList<>();
        for (JsonNode r : api.get("/v1/sandboxes/" + sandboxId + "/egress", Map.of("limit", 100)).path("data")) {
            decisions.add(r.path("host").asString() + " " + r.path("decision").asString());
        }
        assertThat(decisions).contains("127.0.0.1 allowed", "localhost denied");

        // the session's outputs stay readable through the sandbox API after the session (and its sandbox) ended
        api.call("DELETE", "/v1/sessions/" + sessionId, Map.of(), null);
        assertThat(api.get("/v1/sandboxes/" + sandboxId).path("state").asString()).isEqualTo("terminated");
        byte[] result = api.call("GET", "/v1/sandboxes/" + sandboxId + "/outputs/content", Map.of("path", "result.txt"), null);
        assertThat(new String(result, StandardCharsets.UTF_8)).isEqualTo("from-the-session\n");
    }

    @Test
    void anEnvironmentWithoutAllowedHostsGetsNoNetworkAtAll() {
        ObjectNode env = obj().put("name", "closed-env");
        env.putObject("config").put("type", "cloud"); // networking defaults to limited with no hosts
        String sessionId = runOneToolCall(env);

        assertThat(model.toolResults.getFirst()).as("no proxy, no way out").doesNotContain("allowed=200");
        assertThat(up.reached(ALLOWED)).isFalse();
        String sandboxId = api.get("/v1/sessions/" + sessionId).path("paddock_sandbox_id").asString();
        assertThat(api.get("/v1/sandboxes/" + sandboxId).path("network").path("type").asString()).isEqualTo("none");
    }

    /** Creates agent, environment and session, sends one message and waits until the loop is idle again. */
    private String runOneToolCall(ObjectNode environment) {
        String envId = api.json("POST", "/v1/environments", Map.of(), environment).path("id").asString();
        String sessionId = AgentSessions.sendGo(api, AgentSessions.toolsetAgent(api), envId);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> model.finished());
        await().atMost(Duration.ofSeconds(20)).until(() -> "idle".equals(api.get("/v1/sessions/" + sessionId).path("status").asString()));
        return sessionId;
    }

    private static ObjectNode obj() {
        return Json.object();
    }

    /** A Messages API on loopback: asks for one bash call, then ends the turn; keeps the tool results it was sent. */
    static final class ToolCallingModel implements AutoCloseable {
        final HttpServer server;
        final List<String> toolResults = new CopyOnWriteArrayList<>();
        private volatile boolean finished;

        ToolCallingModel(String command) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/v1/messages", exchange -> {
                JsonNode request = Json.read(exchange.getRequestBody().readAllBytes());
                List<String> results = new ArrayList<>();
                for (JsonNode m : request.path("messages")) {
                    for (JsonNode b : m.path("content")) {
                        if (!"tool_result".equals(b.path("type").asString())) continue;
                        JsonNode c = b.path("content");
                        StringBuilder text = new StringBuilder(c.isString() ? c.asString() : "");
                        if (c.isArray()) for (JsonNode part : c) text.append(part.path("text").asString());
                        results.add(text.toString());
                    }
                }
                Map<String, Object> block = results.isEmpty()
                        ? Map.of("type", "tool_use", "id", "toolu_net1", "name", "bash", "input", Map.of("command", command))
                        : Map.of("type", "text", "text", "done");
                if (!results.isEmpty()) {
                    toolResults.clear();
                    toolResults.addAll(results);
                }
                // Paddock's loop always streams (stream: true)
                stream(exchange, request.path("model").asString(), block, results.isEmpty() ? "tool_use" : "end_turn");
                if (!results.isEmpty()) finished = true;
            });
            server.start();
        }

        /** The answer as the Messages API streams it: the message, its one block (started empty, then its one delta), the stop reason. */
        private static void stream(HttpExchange exchange, String model, Map<String, Object> block, String stopReason) throws IOException {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            Map<String, Object> usage = Map.of("input_tokens", 10, "output_tokens", 5);
            Map<String, Object> message = new LinkedHashMap<>(Map.of("id", "msg_1", "type", "message", "role", "assistant", "model", model,
                    "content", List.of(), "usage", usage));
            message.put("stop_reason", null);
            try (OutputStream out = exchange.getResponseBody()) {
                event(out, "message_start", Map.of("type", "message_start", "message", message));
                Map<String, Object> start = new LinkedHashMap<>(block);
                Map<String, Object> delta;
                if ("text".equals(block.get("type"))) {
                    start.put("text", "");
                    delta = Map.of("type", "text_delta", "text", block.get("text"));
                } else {
                    start.put("input", Map.of());
                    delta = Map.of("type", "input_json_delta", "partial_json", JsonMapper.shared().writeValueAsString(block.get("input")));
                }
                event(out, "content_block_start", Map.of("type", "content_block_start", "index", 0, "content_block", start));
                event(out, "content_block_delta", Map.of("type", "content_block_delta", "index", 0, "delta", delta));
                event(out, "content_block_stop", Map.of("type", "content_block_stop", "index", 0));
                event(out, "message_delta", Map.of("type", "message_delta", "delta", Map.of("stop_reason", stopReason), "usage", usage));
                event(out, "message_stop", Map.of("type", "message_stop"));
            }
        }

        private static void event(OutputStream out, String name, Map<String, Object> data) throws IOException {
            out.write(("event: " + name + "\ndata: " + JsonMapper.shared().writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8));
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        boolean finished() {
            return finished;
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
