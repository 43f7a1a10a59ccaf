package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.worker.PaddockWorker;
import dev.paddock.core.store.PageRequest;
import dev.paddock.access.Principal;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Paddock's own Java worker against Paddock's queue: tool calls run in a Paddock sandbox it creates per session. */
class JavaWorkerTest extends ScriptedStackTest {
    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(results -> switch (results) {
            case 0 -> List.of(toolUse("toolu_1", "write", Map.of("file_path", "/workspace/java-worker.txt", "content", "from the java worker\n")));
            case 1 -> List.of(toolUse("toolu_2", "bash", Map.of("command", "cat java-worker.txt")));
            default -> List.of(text("Done."));
        });
        startStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"));
    }

    @Test
    void javaWorkerServesASelfHostedSession() throws Exception {
        SelfHostedSession sh = SelfHostedSession.open(api);
        String env = sh.env(), key = sh.key(), session = sh.session();

        PaddockWorker worker = new PaddockWorker(new PaddockWorker.Settings(stack.baseUrl, env, key, "java-1", Duration.ofMillis(500),
                Duration.ofSeconds(2), null), stack.host);
        Thread t = Thread.ofVirtual().start(worker::run);
        try {
            api.say(session, "go");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(SelfHostedWorkerTest.typesOf(api, session)).endsWith("agent.message", "session.status_idle"));
            assertThat(SelfHostedWorkerTest.typesOf(api, session))
                    .containsSubsequence("agent.tool_use", "user.tool_result", "agent.tool_use", "user.tool_result");
            assertThat(model.lastToolResults().get(1)).contains("from the java worker");
            // the worker idles out, force-stops its item and terminates its sandbox
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(api.get("/v1/environments/" + env + "/work", Map.of())
                    .body().get("data").get(0).get("state").asString()).isEqualTo("stopped"));
            Principal owner = new Principal("worker", "java-1", false);
            var sandboxes = stack.host.list(owner, PageRequest.first(10), true).data();
            assertThat(sandboxes).hasSize(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> stack.host.get(owner, sandboxes.getFirst().id()).state().isTerminal());
            try (InputStream in = stack.host.workspace(owner, sandboxes.getFirst().id()).read("/workspace/java-worker.txt")) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("from the java worker\n");
            }
        } finally {
            worker.close();
            t.join(Duration.ofSeconds(10));
        }
        assertThat(t.isAlive()).isFalse();
    }

    /** A worker stopped mid-session (Ctrl-C on {@code paddock worker}) ends its sandbox before close returns. */
    @Test
    void closingAWorkerThatServesASessionEndsItsSandboxFirst() throws Exception {
        SelfHostedSession sh = SelfHostedSession.open(api);
        PaddockWorker worker = new PaddockWorker(new PaddockWorker.Settings(stack.baseUrl, sh.env(), sh.key(), "java-2", Duration.ofMinutes(5),
                Duration.ofSeconds(2), null), stack.host);
        Thread t = Thread.ofVirtual().start(worker::run);
        Principal owner = new Principal("worker", "java-2", false);
        String sandbox;
        try {
            api.say(sh.session(), "go");
            sandbox = await().atMost(Duration.ofSeconds(60))
                    .until(() -> stack.host.list(owner, PageRequest.first(10), false).data(), running -> running.size() == 1).getFirst().id();
        } finally {
            worker.close();
        }
        assertThat(stack.host.get(owner, sandbox).state().isTerminal()).as("ended before close returned").isTrue();
        t.join(Duration.ofSeconds(10));
        assertThat(t.isAlive()).isFalse();
    }
}
