package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Skills through the official TypeScript SDK: {@code client.beta.skills.create} with files, versions, an agent that
 * pins the skill; then a self-hosted session of that agent served by the SDK's EnvironmentWorker, which downloads the
 * pinned version with its environment key into {@code <workdir>/skills/<name>/}, where the system prompt says it is.
 */
class SkillsNodeSdkTest extends ScriptedStackTest {
    static Path workdir;

    @BeforeAll
    static void start() throws IOException {
        workdir = Files.createTempDirectory("paddock-ts-skills");
        model = new ScriptedModel(results -> switch (results) {
            case 0 -> List.of(toolUse("toolu_1", "bash", Map.of("command", "cat skills/csv-report/SKILL.md")));
            default -> List.of(text("Done."));
        });
        startStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"));
    }

    /** A directory of this test's own for its scripts, which finds the SDK through a link, so the SDK's directory stays as it is. */
    static Path scripts() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "node-scripts");
        Files.createSymbolicLink(dir.resolve("node_modules"), NodeSdk.dir().resolve("node_modules"));
        Files.writeString(dir.resolve("package.json"), "{\"private\":true,\"type\":\"module\"}");
        return dir.toAbsolutePath();
    }

    @Test
    void typescriptSdkUploadsVersionsAndPinsASkillThatItsWorkerLaysOut() throws Exception {
        Path sdk = scripts();
        JsonNode out = Rest.JSON.readTree(node(sdk, "ts-skills.mjs", Map.of("PADDOCK_API_KEY", stack.apiKey)));
        JsonNode skill = out.get("skill");
        assertThat(skill.get("type").asString()).isEqualTo("skill");
        assertThat(skill.get("display_name").asString()).isEqualTo("CSV report");
        assertThat(skill.get("source").get("type").asString()).isEqualTo("custom");
        String second = out.get("second").get("id").asString();
        assertThat(out.get("second").get("name").asString()).isEqualTo("csv-report");
        assertThat(out.get("versions").get(0).asString()).isEqualTo(second);
        assertThat(out.get("versions")).hasSize(2);
        assertThat(out.get("listed").toString()).contains(skill.get("id").asString());
        assertThat(out.get("latest").get("id").asString()).isEqualTo(second);
        JsonNode pinned = out.get("agent").get("skills").get(0);
        assertThat(pinned.get("skill_id").asString()).isEqualTo(skill.get("id").asString());
        assertThat(pinned.get("version").asString()).isEqualTo(second);
        assertThat(out.get("anthropic").get("status").asInt()).isEqualTo(400);
        assertThat(out.get("anthropic").get("code").asString()).isEqualTo("anthropic_skills_unavailable");

        String env = api.post("/v1/environments", Map.of("name", "laptop-skills", "config", Map.of("type", "self_hosted"))).body().get("id").asString();
        String envKey = api.post("/v1/environments/" + env + "/keys", Map.of("name", "ts worker")).body().get("key").asString();
        String session = api.post("/v1/sessions", Map.of("agent", out.get("agent").get("id").asString(), "environment_id", env)).body().get("id").asString();
        try (InputStream in = getClass().getResourceAsStream("/agents/ts-worker.mjs")) {
            Files.copy(in, sdk.resolve("ts-worker.mjs"), StandardCopyOption.REPLACE_EXISTING);
        }
        ProcessBuilder pb = new ProcessBuilder("node", sdk.resolve("ts-worker.mjs").toString()).directory(sdk.toFile()).redirectErrorStream(true)
                .redirectOutput(sdk.resolve("ts-skills-worker.log").toFile());
        pb.environment().putAll(Map.of("PADDOCK_BASE_URL", stack.baseUrl, "PADDOCK_ENVIRONMENT_ID", env, "PADDOCK_ENVIRONMENT_KEY", envKey,
                "WORKDIR", workdir.toString()));
        Process worker = pb.start();
        try {
            api.say(session, "summarise data.csv");
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                    assertThat(SelfHostedWorkerTest.typesOf(api, session)).contains("user.tool_result").endsWith("session.status_idle"));
        } finally {
            worker.destroy();
            worker.waitFor();
        }
        assertThat(model.requests.getFirst().get("system").asString())
                .contains("- csv-report: Summarise a CSV file. Use when the user hands you a CSV. (skills/csv-report/SKILL.md)");
        assertThat(model.lastToolResults().getFirst()).contains("MARKER-B").doesNotContain("MARKER-A");
        // the environment key reads only what its sessions pin, and manages nothing
        Rest asWorker = new Rest(stack.baseUrl, envKey);
        assertThat(asWorker.get("/v1/skills/" + skill.get("id").asString(), Map.of()).status()).isEqualTo(403);
        assertThat(asWorker.get("/v1/skills/" + skill.get("id").asString() + "/versions/" + second, Map.of()).status()).isEqualTo(200);
        String first = out.get("versions").get(1).asString();
        assertThat(asWorker.get("/v1/skills/" + skill.get("id").asString() + "/versions/" + first, Map.of()).body()
                .get("error").get("code").asString()).isEqualTo("skill_not_found");
    }

    static String node(Path sdk, String script, Map<String, String> env) throws IOException, InterruptedException {
        try (InputStream in = SkillsNodeSdkTest.class.getResourceAsStream("/agents/" + script)) {
            Files.copy(in, sdk.resolve(script), StandardCopyOption.REPLACE_EXISTING);
        }
        ProcessBuilder pb = new ProcessBuilder("node", sdk.resolve(script).toString()).directory(sdk.toFile()).redirectErrorStream(true);
        pb.environment().put("PADDOCK_BASE_URL", stack.baseUrl);
        pb.environment().putAll(env);
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        return output.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow(() -> new AssertionError(output));
    }
}
