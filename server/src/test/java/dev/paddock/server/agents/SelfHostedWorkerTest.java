package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A self-hosted environment served by the official TypeScript SDK's EnvironmentWorker (run by node): Paddock runs
 * the agent loop, the worker polls Paddock's queue, acks, heartbeats, runs the tool calls in its workdir and sends
 * the results back as user.tool_result events, which reach the model.
 */
class SelfHostedWorkerTest {
    static ScriptedModel model;
    static AgentsStack stack;
    static Rest api;
    static Path workdir;

    @BeforeAll
    static void start() throws IOException {
        workdir = Files.createTempDirectory("paddock-ts-worker");
        model = new ScriptedModel(results -> switch (results) {
            case 0 -> List.of(toolUse("toolu_1", "write", Map.of("file_path", workdir.resolve("from-worker.txt").toString(), "content", "written by the worker\n")));
            case 1 -> List.of(toolUse("toolu_2", "bash", Map.of("command", "cat from-worker.txt")));
            default -> List.of(text("Done."));
        });
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"));
        api = new Rest(stack.baseUrl, stack.apiKey);
    }

    @AfterAll
    static void stop() throws IOException {
        stack.close();
        model.close();
        try (Stream<Path> files = Files.walk(workdir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void typescriptEnvironmentWorkerExecutesTheSessionsToolCalls() throws Exception {
        String agent = api.post("/v1/agents", Map.of("name", "remote", "model", "claude-sonnet-4-5",
                "tools", List.of(Map.of("type", "agent_toolset_20260401")))).body().get("id").asString();
        String env = api.post("/v1/environments", Map.of("name", "laptop", "config", Map.of("type", "self_hosted"))).body().get("id").asString();
        Rest.Answer key = api.post("/v1/environments/" + env + "/keys", Map.of("name", "ts worker"));
        assertThat(key.status()).isEqualTo(201);
        String envKey = key.body().get("key").asString();
        String session = api.post("/v1/sessions", Map.of("agent", agent, "environment_id", env)).body().get("id").asString();

        Path sdk = NodeSdk.dir();
        Path script = sdk.resolve("ts-worker.mjs");
        try (InputStream in = getClass().getResourceAsStream("/agents/ts-worker.mjs")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        ProcessBuilder pb = new ProcessBuilder("node", script.toString()).directory(sdk.toFile()).redirectErrorStream(true)
                .redirectOutput(sdk.resolve("ts-worker.log").toFile());
        pb.environment().put("PADDOCK_BASE_URL", stack.baseUrl);
        pb.environment().put("PADDOCK_ENVIRONMENT_ID", env);
        pb.environment().put("PADDOCK_ENVIRONMENT_KEY", envKey);
        pb.environment().put("WORKDIR", workdir.toString());
        Process worker = pb.start();
        try {
            Rest.Answer sent = api.say(session, "use the worker");
            assertThat(sent.status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(types(session)).contains("session.status_idle").endsWith("session.status_idle"));
            List<String> types = types(session);
            assertThat(types).containsSubsequence("agent.tool_use", "user.tool_result", "agent.tool_use", "user.tool_result", "agent.message");
            assertThat(Files.readString(workdir.resolve("from-worker.txt"))).isEqualTo("written by the worker\n");
            assertThat(model.lastToolResults()).hasSize(2);
            assertThat(model.lastToolResults().get(1)).contains("written by the worker");
            JsonNode work = api.get("/v1/environments/" + env + "/work", Map.of()).body().get("data").get(0);
            assertThat(work.get("data").get("id").asString()).isEqualTo(session);
            assertThat(work.get("acknowledged_at").isNull()).isFalse();
            // the worker idles out after the turn ended and force-stops its item
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(api.get("/v1/environments/" + env + "/work", Map.of()).body().get("data").get(0).get("state").asString()).isEqualTo("stopped"));
        } finally {
            worker.destroy();
            worker.waitFor();
        }
    }

    static List<String> types(String session) {
        return typesOf(api, session);
    }

    static List<String> typesOf(Rest api, String session) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : api.get("/v1/sessions/" + session + "/events?limit=1000", Map.of()).body().get("data")) out.add(e.get("type").asString());
        return out;
    }
}
