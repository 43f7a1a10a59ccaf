package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.store.PageRequest;
import dev.paddock.toolset.AgentToolset;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON of agents, environments, environment keys and sessions, as answered and as stored, pinned byte for byte
 * (ids, secrets and times masked): the SDKs read these shapes, and rows written earlier must read the same.
 */
class WireShapesTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String GOLDEN = "/wire-shapes.txt";

    private final List<String> lines = new ArrayList<>();

    @Test
    void agentsEnvironmentsAndSessionsKeepTheirWireShapes() throws IOException {
        // the model is asked only by the cloud session at the end: a rate limit, then a refusal
        try (ScriptedModel model = new ScriptedModel((results, call) -> call == 1 ? Reply.error(429, "rate_limit_error", "0")
                : Reply.refusal("cyber", "could enable harm"));
             AgentsFixture f = new AgentsFixture(model)) {
            ManagedAgents m = f.agents;
            ResourceStore rows = f.store.agents().resources();

            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", "researcher");
            body.put("description", "reads things");
            body.put("system", "be brief");
            body.put("model", Map.of("id", "claude-x", "effort", "high", "speed", "fast"));
            body.put("mcp_servers", List.of(Map.of("name", "docs", "type", "url", "url", "https://mcp.example/sse")));
            Map<String, Object> schema = new LinkedHashMap<>();
            schema.put("type", "object");
            schema.put("properties", Map.of("q", Map.of("type", "string")));
            body.put("tools", List.of(
                    Map.of("type", AgentToolset.TYPE, "default_config", Map.of("permission_policy", Map.of("type", "always_ask")),
                            "configs", List.of(Map.of("name", "bash", "enabled", false))),
                    Map.of("type", "mcp_toolset", "mcp_server_name", "docs"),
                    Map.of("type", "custom", "name", "lookup", "description", "looks up",
                            "input_schema", schema)));
            body.put("metadata", Map.of("team", "a"));
            body.put("skills", List.of());
            Map<String, Object> agent = m.agents().create(f.caller, body).toWire();
            String agentId = (String) agent.get("id");
            record("agent.create", agent);
            record("agent.stored", rows.find(Resource.AGENT, "default", agentId).orElseThrow().body());
            record("agent.minimal", m.agents().create(f.caller, Map.of("name", "plain", "model", "claude-y")).toWire());
            Map<String, Object> patch = new LinkedHashMap<>();
            patch.put("version", 1);
            patch.put("model", Map.of("id", "claude-z", "effort", Map.of("type", "low"), "inference_geo", "eu"));
            patch.put("description", null);
            patch.put("metadata", Map.of("team", "b", "stage", "dev"));
            record("agent.update", m.agents().update(f.caller, agentId, patch).toWire());
            record("agent.get", m.agents().get(f.caller, agentId, null).toWire());
            record("agent.get.v1", m.agents().get(f.caller, agentId, 1).toWire());
            record("agent.versions", m.agents().versions(f.caller, agentId, PageRequest.first(10)).toWire());

            Map<String, Object> cloud = m.environments().create(f.caller, Map.of("name", "cloud-env", "description", "d",
                    "config", Map.of("type", "cloud", "networking", Map.of("type", "limited", "allowed_hosts", List.of("api.example.com"),
                            "allow_package_managers", true), "packages", Map.of("pip", List.of("requests"))),
                    "metadata", Map.of("k", "v"))).toWire();
            String cloudId = (String) cloud.get("id");
            record("environment.create", cloud);
            record("environment.stored", rows.find(Resource.ENVIRONMENT, "default", cloudId).orElseThrow().body());
            record("environment.default", m.environments().create(f.caller, Map.of("name", "default-env")).toWire());
            record("environment.unrestricted", m.environments().create(f.caller, Map.of("name", "open-env",
                    "config", Map.of("type", "cloud", "networking", Map.of("type", "unrestricted")), "scope", "account")).toWire());
            record("environment.update", m.environments().update(f.caller, cloudId, Map.of("name", "cloud-env-2",
                    "config", Map.of("type", "cloud"), "metadata", Map.of("k2", "v2"))).toWire());
            Map<String, Object> key = m.environments().createKey(f.caller, cloudId, Map.of("name", "worker"));
            record("environment.key", key);
            record("environment.keys", m.environments().listKeys(f.caller, cloudId, PageRequest.first(10)).toWire());
            record("environment.archive", m.environments().archive(f.caller, cloudId).toWire());

            Map<String, Object> selfHosted = m.environments().create(f.caller, Map.of("name", "worker-env", "config", Map.of("type", "self_hosted"))).toWire();
            record("environment.self_hosted", selfHosted);
            record("environment.list", m.environments().list(f.caller, PageRequest.first(2), false).toWire());
            Map<String, Object> session = m.sessions().create(f.caller, Map.of("agent", Map.of("type", "agent", "id", agentId, "version", 1),
                    "environment_id", selfHosted.get("id"), "title", "t", "metadata", Map.of("a", "1"))).toWire();
            String sessionId = (String) session.get("id");
            record("session.create", session);
            record("session.stored", rows.find(Resource.SESSION, "default", sessionId).orElseThrow().body());
            Map<String, Object> sessionPatch = new LinkedHashMap<>();
            sessionPatch.put("title", "t2");
            sessionPatch.put("metadata", Map.of("a", "2", "b", "3"));
            record("session.update", m.sessions().update(f.caller, sessionId, sessionPatch).toWire());
            record("session.list", m.sessions().list(f.caller, PageRequest.first(5), new SessionService.Query(null, List.of("idle"), false, true)).toWire());
            record("session.archive", m.sessions().archive(f.caller, sessionId).toWire());
            for (SessionEvent e : f.events(sessionId)) record("event." + e.type(), e.body());
            record("session.delete", m.sessions().delete(f.caller, sessionId));
            record("environment.delete", m.environments().delete(f.caller, (String) selfHosted.get("id")));
            record("agent.archive", m.agents().archive(f.caller, agentId).toWire());
            record("agent.list", m.agents().list(f.caller, PageRequest.first(5), true).toWire());

            String cloudSession = f.session("cloud", List.of(), List.of());
            f.say(cloudSession, "hi");
            f.awaitIdle(cloudSession, 1);
            for (SessionEvent e : f.events(cloudSession)) record("turn." + e.type(), e.body());
            record("session.after_turn", m.sessions().get(f.caller, cloudSession).toWire().get("usage"));
        }
        String actual = String.join("\n", lines) + "\n";
        Files.writeString(Path.of("target", "wire-shapes.actual.txt"), actual);
        assertThat(actual).isEqualTo(golden());
    }

    private void record(String label, Object value) {
        String json = JSON.writeValueAsString(value)
                .replaceAll("\"(agent|env|sesn|ekey|sevt|evt)_[0-9a-z]{26}", "\"$1_ID")
                .replaceAll("\"pek_[A-Za-z0-9_-]+\"", "\"pek_SECRET\"")
                .replaceAll("\"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\"", "\"TIME\"")
                .replaceAll("\"(next_page|prev_page)\":\"[^\"]+\"", "\"$1\":\"CURSOR\"")
                .replaceAll("\"(duration_seconds|active_seconds)\":[0-9.]+", "\"$1\":SECONDS");
        lines.add(label + " " + json);
    }

    private static String golden() throws IOException {
        try (InputStream in = WireShapesTest.class.getResourceAsStream(GOLDEN)) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
