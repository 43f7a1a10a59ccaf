package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Managed Agents session whose sandbox was on a node that is lost goes on on another node: the next user event,
 * sent to a survivor, runs its turn there, with a new sandbox for its tools, and the conversation so far; a turn the
 * lost node was running when it died is run on by the survivor by itself, once. Real {@code paddock serve}
 * processes on one PostgreSQL, bwrap, and a scripted Messages API on loopback: the survivor B and the model serve
 * the whole class, each test starts a node A of its own, begins its session there and kills it.
 */
@Tag("bwrap")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodesSessionsEndToEndTest {
    static final String KEY = "pdk_nodes_sessions_admin_key_0123456789ab";
    OneToolPerMessageModel model;
    ServerNodes cluster;
    PaddockClient apiB;
    ServerProcess b;
    ServerProcess a;

    @BeforeAll
    void startSurvivor() throws Exception {
        model = new OneToolPerMessageModel();
        cluster = new ServerNodes("pds", KEY);
        b = node();
        apiB = b.start();
    }

    @AfterEach
    void removeLostNode() throws Exception {
        if (a == null) return;
        System.err.println("--- log of A, " + a.dataDir + ":\n" + a.logTail());
        cluster.remove(a); // a killed server leaves its sandboxes running
        a = null;
    }

    @AfterAll
    void stopSurvivor() throws Exception {
        try {
            if (cluster != null) {
                System.err.println(cluster.logTails());
                cluster.close();
            }
        } finally {
            if (model != null) model.close();
        }
    }

    ServerProcess node() throws Exception {
        return cluster.node(Map.of("PADDOCK_NODE_LEASE", "5s", "PADDOCK_MODEL_BASE_URL", model.baseUrl(), "PADDOCK_MODEL_API_KEY", "test-model-key"));
    }

    /** Starts this test's node A and begins a session there (a fresh environment and agent, one user message). */
    String sessionStartedOnA() throws Exception {
        a = node();
        PaddockClient apiA = a.start();
        ObjectNode env = Json.object().put("name", "nodes-env-" + UUID.randomUUID());
        env.putObject("config").put("type", "cloud");
        String envId = apiA.json("POST", "/v1/environments", Map.of(), env).path("id").asString();
        return AgentSessions.sendGo(apiA, AgentSessions.toolsetAgent(apiA), envId);
    }

    @Test
    void aSessionWhoseSandboxWasOnALostNodeGoesOnOnAnotherNode() throws Exception {
        model.reset(null);
        String sessionId = sessionStartedOnA();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> model.toolResults.size() == 1
                && "idle".equals(apiB.get("/v1/sessions/" + sessionId).path("status").asString()));
        assertThat(model.toolResults.getFirst()).contains("tool-call-1");
        String firstSandbox = apiB.get("/v1/sessions/" + sessionId).path("paddock_sandbox_id").asString();
        assertThat(Files.isDirectory(a.dataDir.resolve("run").resolve(firstSandbox))).as("the first turn's sandbox runs on A").isTrue();

        a.kill();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> apiB.get("/v1/sandboxes/" + firstSandbox).path("state").asString().equals("failed"));

        ObjectNode again = Json.object();
        again.putArray("events").addObject().put("type", "user.message").putArray("content").addObject().put("type", "text").put("text", "again");
        apiB.json("POST", "/v1/sessions/" + sessionId + "/events", Map.of(), again);
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> model.toolResults.size() == 2
                && "idle".equals(apiB.get("/v1/sessions/" + sessionId).path("status").asString()));
        assertThat(model.toolResults.get(1)).contains("tool-call-2");
        assertThat(model.lastRequestMessages.get()).as("the conversation so far came along").isGreaterThanOrEqualTo(5);
        String secondSandbox = apiB.get("/v1/sessions/" + sessionId).path("paddock_sandbox_id").asString();
        assertThat(secondSandbox).isNotEqualTo(firstSandbox);
        assertThat(apiB.get("/v1/sandboxes/" + secondSandbox).path("state").asString()).isEqualTo("running");
        assertThat(Files.isDirectory(b.dataDir.resolve("run").resolve(secondSandbox))).as("the second turn's sandbox runs on B").isTrue();
        List<String> types = types(apiB, sessionId);
        assertThat(types.stream().filter("agent.tool_use"::equals).count()).isEqualTo(2);
        assertThat(types.getLast()).isEqualTo("session.status_idle");
    }

    @Test
    void aTurnCutOffWhenItsNodeDiesRunsOnOnASurvivorByItself() throws Exception {
        // each bash call runs until 15 s after the model asked for it: A dies well within that, and the survivor's
        // run of the same call, which begins after A's lease ran out, waits only for what is left of the 15 s
        model.reset(Duration.ofSeconds(15));
        String sessionId = sessionStartedOnA();
        // the turn runs on A (where its first event arrived): its tool call is under way there when A dies
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> types(apiB, sessionId).contains("agent.tool_use") && !apiB.get("/v1/sessions/" + sessionId).path("paddock_sandbox_id").isNull());
        String firstSandbox = apiB.get("/v1/sessions/" + sessionId).path("paddock_sandbox_id").asString();
        assertThat(Files.isDirectory(a.dataDir.resolve("run").resolve(firstSandbox))).as("the turn's sandbox runs on A").isTrue();
        assertThat(model.toolResults).isEmpty();
        a.kill();

        // nothing is sent: B marks A lost, takes the session over and answers the cut-off tool call as lost (it may have
        // run in part, so it is not run again); the model ends the turn
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(250)).until(() -> model.toolResults.size() == 1
                && "idle".equals(apiB.get("/v1/sessions/" + sessionId).path("status").asString()));
        assertThat(model.toolResults.getFirst()).contains("it was not run again").doesNotContain("tool-call-1");
        List<String> types = types(apiB, sessionId);
        assertThat(types.stream().filter("session.status_rescheduled"::equals).count()).as(types.toString()).isEqualTo(1);
        assertThat(types.stream().filter("agent.tool_use"::equals).count()).as(types.toString()).isEqualTo(1);
        assertThat(types.stream().filter("agent.tool_result"::equals).count()).as(types.toString()).isEqualTo(1);
        assertThat(types.stream().filter("session.status_idle"::equals).count()).as(types.toString()).isEqualTo(1);
        assertThat(types.getLast()).isEqualTo("session.status_idle");
        assertThat(types.stream().filter("span.model_request_end"::equals).count()).as("every model request span is closed")
                .isEqualTo(types.stream().filter("span.model_request_start"::equals).count());
    }

    private static List<String> types(PaddockClient api, String sessionId) {
        List<String> types = new ArrayList<>();
        api.get("/v1/sessions/" + sessionId + "/events", Map.of("limit", 100)).path("data").forEach(e -> types.add(e.path("type").asString()));
        return types;
    }

    /**
     * A Messages API on loopback: to a conversation that ends with the user's text it answers one bash call (echoing
     * how many it has asked for), to one that ends with a tool result it ends the turn; it keeps the tool results.
     */
    static final class OneToolPerMessageModel implements AutoCloseable {
        final HttpServer server;
        final List<String> toolResults = new CopyOnWriteArrayList<>();
        final AtomicInteger lastRequestMessages = new AtomicInteger();
        private final AtomicInteger calls = new AtomicInteger();
        /** How long each bash call runs before its echo (so a node can die during the call); null: no wait. */
        private volatile Duration toolRunsFor;

        OneToolPerMessageModel() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/v1/messages", exchange -> {
                JsonNode request = Json.read(exchange.getRequestBody().readAllBytes());
                JsonNode messages = request.path("messages");
                lastRequestMessages.set(messages.size());
                String lastResult = null;
                for (JsonNode block : messages.get(messages.size() - 1).path("content")) {
                    if (!"tool_result".equals(block.path("type").asString())) continue;
                    JsonNode c = block.path("content");
                    StringBuilder text = new StringBuilder(c.isString() ? c.asString() : "");
                    if (c.isArray()) for (JsonNode part : c) text.append(part.path("text").asString());
                    lastResult = text.toString();
                }
                Map<String, Object> answer;
                if (lastResult == null) {
                    int n = calls.incrementAndGet();
                    answer = Map.of("type", "tool_use", "id", "toolu_nodes" + n, "name", "bash", "input", Map.of("command", waitFirst() + "echo tool-call-" + n));
                } else {
                    toolResults.add(lastResult);
                    answer = Map.of("type", "text", "text", "done");
                }
                stream(exchange.getResponseBody(), exchange, request.path("model").asString(), answer);
            });
            server.start();
        }

        /** Forgets what earlier tests asked and answered; each bash call from now on runs for {@code toolRunsFor}. */
        void reset(Duration toolRunsFor) {
            this.toolRunsFor = toolRunsFor;
            toolResults.clear();
            calls.set(0);
            lastRequestMessages.set(0);
        }

        /** A wait until a moment fixed now: a later run of the same call (on another node) waits only for the rest. */
        private String waitFirst() {
            Duration d = toolRunsFor;
            if (d == null) return "";
            long until = Instant.now().plus(d).getEpochSecond();
            return "s=$((" + until + " - $(date +%s))); [ $s -le 0 ] || sleep $s; ";
        }

        private static void stream(OutputStream body, HttpExchange exchange, String model, Map<String, Object> block)
                throws IOException {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            boolean text = "text".equals(block.get("type"));
            Map<String, Object> usage = Map.of("input_tokens", 10, "output_tokens", 5);
            Map<String, Object> message = new LinkedHashMap<>(Map.of("id", "msg_nodes", "type", "message", "role", "assistant", "model", model,
                    "content", List.of(), "usage", usage));
            message.put("stop_reason", null);
            Map<String, Object> start = new LinkedHashMap<>(block);
            Map<String, Object> delta;
            if (text) {
                start.put("text", "");
                delta = Map.of("type", "text_delta", "text", block.get("text"));
            } else {
                start.put("input", Map.of());
                delta = Map.of("type", "input_json_delta", "partial_json", JsonMapper.shared().writeValueAsString(block.get("input")));
            }
            try (OutputStream out = body) {
                event(out, "message_start", Map.of("type", "message_start", "message", message));
                event(out, "content_block_start", Map.of("type", "content_block_start", "index", 0, "content_block", start));
                event(out, "content_block_delta", Map.of("type", "content_block_delta", "index", 0, "delta", delta));
                event(out, "content_block_stop", Map.of("type", "content_block_stop", "index", 0));
                event(out, "message_delta", Map.of("type", "message_delta", "delta", Map.of("stop_reason", text ? "end_turn" : "tool_use"), "usage", usage));
                event(out, "message_stop", Map.of("type", "message_stop"));
            }
        }

        private static void event(OutputStream out, String name, Map<String, Object> data) throws IOException {
            out.write(("event: " + name + "\ndata: " + JsonMapper.shared().writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8));
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
