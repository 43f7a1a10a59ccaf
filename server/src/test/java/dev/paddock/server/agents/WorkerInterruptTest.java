package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.access.Principal;
import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.worker.PaddockWorker;
import dev.paddock.core.store.PageRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code user.interrupt} in the self-hosted lane (Paddock's Java worker, the subprocess driver, a scripted Messages
 * API in place of the vendor's): the session goes idle at once and the worker kills the tool it is running.
 */
class WorkerInterruptTest {
    static ScriptedModel model;
    static AgentsStack stack;
    static Rest api;

    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(results -> results == 0
                ? List.of(toolUse("toolu_1", "bash", Map.of("command", "sleep 600 & echo $! > pid; wait")))
                : List.of(text("should not be asked")));
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"));
        api = new Rest(stack.baseUrl, stack.apiKey);
    }

    @AfterAll
    static void stop() {
        stack.close();
        model.close();
    }

    @Test
    void anInterruptIdlesTheSessionAndTheWorkerKillsTheRunningTool() throws Exception {
        SelfHostedSession sh = SelfHostedSession.open(api);
        String session = sh.session();
        PaddockWorker worker = new PaddockWorker(new PaddockWorker.Settings(stack.baseUrl, sh.env(), sh.key(), "java-int", Duration.ofMinutes(5),
                Duration.ofSeconds(2), null), stack.host);
        Thread t = Thread.ofVirtual().start(worker::run);
        Principal owner = new Principal("worker", "java-int", false);
        try {
            api.post("/v1/sessions/" + session + "/events", Map.of("events",
                    List.of(Map.of("type", "user.message", "content", List.of(Map.of("type", "text", "text", "go"))))));
            long sleeper = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> pid(owner), p -> p > 0);
            assertThat(ProcessHandle.of(sleeper)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

            assertThat(api.post("/v1/sessions/" + session + "/events", Map.of("events", List.of(Map.of("type", "user.interrupt")))).status())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(SelfHostedWorkerTest.typesOf(api, session)).endsWith("session.status_idle"));
            // the worker killed the tool's process group, and answered nothing: the loop answered the call itself
            await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(sleeper).map(p -> !p.isAlive()).orElse(true));
            List<String> types = SelfHostedWorkerTest.typesOf(api, session);
            assertThat(types).contains("agent.tool_result").doesNotContain("user.tool_result");
            JsonNode idle = lastOfType(session, "session.status_idle");
            assertThat(idle.get("stop_reason").get("type").asString()).isEqualTo("end_turn");
            assertThat(model.requests).hasSize(1);
        } finally {
            worker.close();
            t.join(Duration.ofSeconds(10));
        }
    }

    private static JsonNode lastOfType(String session, String type) {
        JsonNode found = null;
        for (JsonNode e : api.get("/v1/sessions/" + session + "/events?limit=100", Map.of()).body().get("data")) {
            if (e.get("type").asString().equals(type)) found = e;
        }
        return found;
    }

    /** The pid the tool wrote into the worker's sandbox; 0 until it has. */
    private static long pid(Principal owner) {
        var sandboxes = stack.host.list(owner, PageRequest.first(10), false).data();
        if (sandboxes.isEmpty()) return 0;
        try (InputStream in = stack.host.workspace(owner, sandboxes.getFirst().id()).read("/workspace/pid")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? 0 : Long.parseLong(text);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
