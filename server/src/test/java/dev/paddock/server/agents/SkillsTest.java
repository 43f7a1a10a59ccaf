package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.MultipartField;
import com.anthropic.core.http.HttpResponse;
import com.anthropic.models.beta.skills.BetaSkill;
import com.anthropic.models.beta.skills.SkillCreateParams;
import com.anthropic.models.beta.skills.versions.BetaSkillVersion;
import com.anthropic.models.beta.skills.versions.VersionCreateParams;
import com.anthropic.models.beta.skills.versions.VersionDownloadParams;
import com.anthropic.models.beta.skills.versions.VersionRetrieveParams;
import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Skills against a real Paddock on loopback: uploaded through the official Java SDK, versioned, downloaded, pinned
 * on an agent; a session's model (scripted) finds the skill in its system prompt and reads its SKILL.md in the
 * sandbox with bash. Bad uploads and references are refused with their codes.
 */
class SkillsTest {
    static final String SKILL_MD = """
            ---
            name: pdf-forms
            description: Fill PDF forms from a CSV of field values. Use when the user asks to fill a form.
            ---
            # Filling forms
            Run scripts/fill.py with the form and the CSV. MARKER-7316
            """;

    static final HttpClient HTTP = HttpClient.newHttpClient();
    static ScriptedModel model;
    static AgentsStack stack;
    static AnthropicClient client;
    static Rest api;

    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(results -> switch (results) {
            case 0 -> List.of(text("Reading the skill."), toolUse("toolu_1", "bash", Map.of("command", "cat skills/pdf-forms/SKILL.md")));
            default -> List.of(text("Done."));
        });
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"));
        client = AnthropicOkHttpClient.builder().baseUrl(stack.baseUrl).apiKey(stack.apiKey).maxRetries(0).build();
        api = new Rest(stack.baseUrl, stack.apiKey);
    }

    @AfterAll
    static void stop() {
        client.close();
        stack.close();
        model.close();
    }

    static MultipartField<InputStream> file(String path, String content) {
        return MultipartField.<InputStream>builder().value(new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)))
                .filename(path).contentType("text/plain").build();
    }

    static BetaSkill createSkill() {
        return client.beta().skills().create(SkillCreateParams.builder()
                .addFile(file("pdf-forms/SKILL.md", SKILL_MD))
                .addFile(file("pdf-forms/scripts/fill.py", "print('filled')\n"))
                .build());
    }

    @Test
    void uploadedSkillIsVersionedDownloadedAndReadByTheSessionsModelInItsSandbox() throws Exception {
        BetaSkill skill = createSkill();
        assertThat(skill.id()).startsWith("skill_");
        assertThat(skill.displayName()).isEqualTo("pdf-forms");
        assertThat(skill.source().type()).hasToString("custom");
        String first = skill.latestVersionId();
        assertThat(first).matches("[0-9]{16}");

        BetaSkillVersion second = client.beta().skills().versions().create(skill.id(), VersionCreateParams.builder()
                .addFile(file("pdf-forms/SKILL.md", SKILL_MD.replace("MARKER-7316", "MARKER-7316 v2")))
                .addFile(file("pdf-forms/scripts/fill.py", "print('filled v2')\n"))
                .build());
        assertThat(Long.parseLong(second.id())).isGreaterThan(Long.parseLong(first));
        assertThat(second.name()).isEqualTo("pdf-forms");
        assertThat(second.description()).startsWith("Fill PDF forms");
        assertThat(client.beta().skills().retrieve(skill.id()).latestVersionId()).isEqualTo(second.id());
        assertThat(client.beta().skills().versions().retrieve("latest", VersionRetrieveParams.builder().skillId(skill.id()).build()).id())
                .isEqualTo(second.id());
        List<String> versions = new ArrayList<>();
        client.beta().skills().versions().list(skill.id()).autoPager().forEach(v -> versions.add(v.id()));
        assertThat(versions).containsExactly(second.id(), first);

        Map<String, String> zip = new LinkedHashMap<>();
        try (HttpResponse r = client.beta().skills().versions().download(first, VersionDownloadParams.builder().skillId(skill.id()).build());
             ZipInputStream in = new ZipInputStream(r.body())) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) zip.put(e.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        assertThat(zip).containsEntry("pdf-forms/SKILL.md", SKILL_MD).containsEntry("pdf-forms/scripts/fill.py", "print('filled')\n");

        // an agent pins the first version; its sessions see exactly that one
        JsonNode agent = api.post("/v1/agents", Map.of("name", "filler", "model", "claude-sonnet-4-5", "system", "You fill forms.",
                "tools", List.of(Map.of("type", "agent_toolset_20260401")),
                "skills", List.of(Map.of("type", "custom", "skill_id", skill.id(), "version", first)))).body();
        assertThat(agent.get("skills").get(0).get("version").asString()).isEqualTo(first);
        String env = api.post("/v1/environments", Map.of("name", "skills-env")).body().get("id").asString();
        String session = api.post("/v1/sessions", Map.of("agent", agent.get("id").asString(), "environment_id", env)).body().get("id").asString();
        assertThat(api.get("/v1/sessions/" + session, Map.of()).body().get("agent").get("skills").get(0).get("version").asString()).isEqualTo(first);
        api.say(session, "fill the form");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(SelfHostedWorkerTest.typesOf(api, session)).endsWith("session.status_idle").contains("agent.tool_result"));

        String system = model.requests.getFirst().get("system").asString();
        assertThat(system).startsWith("You fill forms.").contains("# Skills")
                .contains("- pdf-forms: Fill PDF forms from a CSV of field values. Use when the user asks to fill a form. (/workspace/skills/pdf-forms/SKILL.md)");
        assertThat(model.lastToolResults().getFirst()).contains("MARKER-7316").doesNotContain("v2");
    }

    @Test
    void badUploadsAreRefusedWithTheirCodes() {
        assertThat(code(Multipart.post(api, "/v1/skills", Map.of("../escape/SKILL.md", SKILL_MD.getBytes())))).isEqualTo("400 skill_path_invalid");
        assertThat(code(Multipart.post(api, "/v1/skills", Map.of("/abs/SKILL.md", SKILL_MD.getBytes())))).isEqualTo("400 skill_path_invalid");
        assertThat(code(Multipart.post(api, "/v1/skills", Map.of("a/SKILL.md", SKILL_MD.getBytes(), "b/x.txt", new byte[1]))))
                .isEqualTo("400 skill_path_invalid");
        assertThat(code(Multipart.post(api, "/v1/skills", Map.of("a/README.md", "hi".getBytes())))).isEqualTo("400 skill_md_missing");
        assertThat(code(Multipart.post(api, "/v1/skills", Map.of("a/SKILL.md", "no front matter".getBytes())))).isEqualTo("400 skill_md_invalid");
        assertThat(code(Multipart.post(api, "/v1/skills", Map.of("a/SKILL.md", SKILL_MD.replace("pdf-forms", "Claude_Forms").getBytes()))))
                .isEqualTo("400 skill_name_invalid");
        assertThat(code(Multipart.post(api, "/v1/skills", Map.of("a/SKILL.md", SKILL_MD.replace("description: Fill", "description: <b>Fill</b>").getBytes()))))
                .isEqualTo("400 skill_description_invalid");
        assertThat(code(Multipart.post(api, "/v1/skills", Map.of("a/SKILL.md", SKILL_MD.getBytes(), "a/big.bin", new byte[(8 << 20) + 1]))))
                .isEqualTo("413 skill_too_large");
        assertThat(code(api.post("/v1/skills", Map.of("files", List.of())))).isEqualTo("400 skill_upload_invalid");

        BetaSkill skill = createSkill();
        // a new version must keep the skill's name
        assertThat(code(Multipart.post(api, "/v1/skills/" + skill.id() + "/versions",
                Map.of("other/SKILL.md", SKILL_MD.replace("name: pdf-forms", "name: other-forms").getBytes())))).isEqualTo("400 skill_name_mismatch");
        // the last version stays; the skill goes with all of its versions
        assertThat(code(delete("/v1/skills/" + skill.id() + "/versions/" + skill.latestVersionId()))).isEqualTo("409 skill_last_version");
        assertThat(delete("/v1/skills/" + skill.id()).body().get("type").asString()).isEqualTo("skill_deleted");
        assertThat(code(api.get("/v1/skills/" + skill.id(), Map.of()))).isEqualTo("404 skill_not_found");
        // what Jetty staged of the uploads, the refused ones too, is gone with their requests
        Path staging = stack.dataDir.resolve("skills/.uploads");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            try (Stream<Path> left = Files.list(staging)) {
                assertThat(left.toList()).isEmpty();
            }
        });
    }

    @Test
    void agentSkillsMustExistHere() {
        BetaSkill skill = createSkill();
        assertThat(code(agentWith(Map.of("type", "anthropic", "skill_id", "xlsx")))).isEqualTo("400 anthropic_skills_unavailable");
        assertThat(code(agentWith(Map.of("type", "custom", "skill_id", "skill_0123456789abcdefghjkmnpqrs")))).isEqualTo("404 skill_not_found");
        assertThat(code(agentWith(Map.of("type", "custom", "skill_id", skill.id(), "version", "1")))).isEqualTo("404 skill_version_not_found");
        JsonNode latest = agentWith(Map.of("type", "custom", "skill_id", skill.id(), "version", "latest")).body();
        assertThat(latest.get("skills").get(0).get("version").asString()).isEqualTo(skill.latestVersionId());
        // an anthropic reference to a skill uploaded here is that skill
        JsonNode byId = agentWith(Map.of("type", "anthropic", "skill_id", skill.id())).body();
        assertThat(byId.get("skills").get(0).get("version").asString()).isEqualTo(skill.latestVersionId());
    }

    static Rest.Answer agentWith(Map<String, Object> skill) {
        return api.post("/v1/agents", Map.of("name", "a", "model", "claude-sonnet-4-5", "skills", List.of(skill)));
    }

    static Rest.Answer delete(String path) {
        try {
            java.net.http.HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(stack.baseUrl + path)).header("x-api-key", stack.apiKey)
                    .DELETE().build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            return new Rest.Answer(r.statusCode(), Rest.JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String code(Rest.Answer a) {
        return a.status() + " " + (a.body() == null ? "" : a.body().path("error").path("code").asString(""));
    }
}
