package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.worker.PaddockWorker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Paddock's Java worker lays a self-hosted session's skills into its sandbox, where the prompt says they are. */
class JavaWorkerSkillsTest extends ScriptedStackTest {
    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(results -> switch (results) {
            case 0 -> List.of(toolUse("toolu_1", "bash", Map.of("command", "cat skills/pdf-forms/SKILL.md skills/pdf-forms/scripts/fill.py")));
            default -> List.of(text("Done."));
        });
        startStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"));
    }

    @Test
    void javaWorkerLaysOutThePinnedSkillVersion() throws Exception {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("pdf-forms/SKILL.md", SkillsTest.SKILL_MD.getBytes(StandardCharsets.UTF_8));
        files.put("pdf-forms/scripts/fill.py", "print('from the script')\n".getBytes(StandardCharsets.UTF_8));
        String skill = Multipart.post(api, "/v1/skills", files).body().get("id").asString();
        String agent = api.post("/v1/agents", Map.of("name", "remote", "model", "claude-sonnet-4-5", "tools", List.of(Map.of("type", "agent_toolset_20260401")),
                "skills", List.of(Map.of("type", "custom", "skill_id", skill)))).body().get("id").asString();
        String env = api.post("/v1/environments", Map.of("name", "java-skills", "config", Map.of("type", "self_hosted"))).body().get("id").asString();
        String key = api.post("/v1/environments/" + env + "/keys", Map.of("name", "java worker")).body().get("key").asString();
        String session = api.post("/v1/sessions", Map.of("agent", agent, "environment_id", env)).body().get("id").asString();

        PaddockWorker worker = new PaddockWorker(new PaddockWorker.Settings(stack.baseUrl, env, key, "java-skills", Duration.ofMillis(500),
                Duration.ofSeconds(2), null), stack.host);
        Thread t = Thread.ofVirtual().start(worker::run);
        try {
            api.say(session, "fill it");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(SelfHostedWorkerTest.typesOf(api, session)).contains("user.tool_result").endsWith("session.status_idle"));
        } finally {
            worker.close();
            t.join(Duration.ofSeconds(10));
        }
        assertThat(model.requests.getFirst().get("system").asString()).contains("(skills/pdf-forms/SKILL.md)");
        assertThat(model.lastToolResults().getFirst()).contains("MARKER-7316").contains("from the script");
    }
}
