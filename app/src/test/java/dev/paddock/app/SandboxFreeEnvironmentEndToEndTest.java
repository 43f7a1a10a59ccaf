package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sandbox-free environments ({@code config.type: none}) under {@code paddock serve} with its default bwrap driver:
 * refused unless the operator allows them; allowed, a session's tools run on the host without isolation (proven by
 * the uid a command reports) with a warning event, and the unisolated driver serves nothing else. A scripted model
 * on loopback asks for the one tool call.
 */
@Tag("bwrap")
class SandboxFreeEnvironmentEndToEndTest {
    SessionNetworkEndToEndTest.ToolCallingModel model;
    BwrapServer server;
    PaddockClient api;

    void start(boolean allow) throws Exception {
        model = new SessionNetworkEndToEndTest.ToolCallingModel("id -u; pwd");
        server = new BwrapServer("pf", Map.of("allow_sandbox_free", Boolean.toString(allow), "model_base_url", model.baseUrl(),
                "model_api_key", "test-model-key"));
        api = server.api;
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (server != null) server.close();
        } finally {
            if (model != null) model.close();
        }
    }

    @Test
    void withoutTheOperatorsConsentAnEnvironmentOfTypeNoneIsRefused() throws Exception {
        start(false);
        assertThatThrownBy(() -> api.json("POST", "/v1/environments", Map.of(), environment("free")))
                .hasMessageContaining("disabled on this server").hasMessageContaining("allow_sandbox_free");
    }

    @Test
    void allowedItsSessionsRunToolsOnTheHostWithAWarningAndTheDriverServesNothingElse() throws Exception {
        start(true);
        String envId = api.json("POST", "/v1/environments", Map.of(), environment("free")).path("id").asString();
        String sessionId = AgentSessions.sendGo(api, AgentSessions.toolsetAgent(api), envId);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> model.finished());

        // the command ran as this host's own user, not as a sandbox uid
        Process id = new ProcessBuilder("id", "-u").start();
        String hostUid = new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(model.toolResults.getFirst()).startsWith(hostUid + "\n");
        List<String> types = new ArrayList<>();
        for (JsonNode e : api.get("/v1/sessions/" + sessionId + "/events", Map.of("limit", 100)).path("data")) types.add(e.path("type").asString());
        assertThat(types).contains("session.warning");
        String sandboxId = api.get("/v1/sessions/" + sessionId).path("paddock_sandbox_id").asString();
        assertThat(api.get("/v1/sandboxes/" + sandboxId).path("driver").asString()).isEqualTo("subprocess");

        // no API key can pick the unisolated driver for a sandbox of its own
        assertThatThrownBy(() -> api.json("POST", "/v1/sandboxes", Map.of(), obj().put("driver", "subprocess")))
                .hasMessageContaining("serves only sessions of environments of type 'none'");
        assertThat(api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("driver").asString()).isEqualTo("bwrap");
    }

    private static ObjectNode environment(String name) {
        ObjectNode env = obj().put("name", name);
        env.putObject("config").put("type", "none");
        return env;
    }

    private static ObjectNode obj() {
        return Json.object();
    }
}
