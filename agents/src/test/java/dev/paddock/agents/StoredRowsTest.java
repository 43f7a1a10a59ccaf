package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.Ids;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.Session;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** Rows written by the version that kept bodies as plain maps read back, and answer, as they were stored. */
class StoredRowsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TIME = "2026-11-30T10:00:00Z";
    private static final Instant AT = Instant.parse(TIME);

    @Test
    void agentEnvironmentAndSessionRowsOfTheMapVersionReadBack() throws Exception {
        try (ScriptedModel model = new ScriptedModel(n -> List.of(Map.of("type", "text", "text", "ok")));
             AgentsFixture f = new AgentsFixture(model)) {
            String agentId = Ids.newId(AgentService.PREFIX);
            String envId = Ids.newId(EnvironmentService.PREFIX);
            String sessionId = Ids.newId(SessionService.PREFIX);
            // an MCP server's keys in the order a Map.of happened to give them
            String snapshot = """
                    {"id":"%s","type":"agent","name":"old","description":null,"system":"s","model":{"id":"claude-x","effort":{"type":"high"}},\
                    "tools":[{"type":"mcp_toolset","mcp_server_name":"docs","default_config":{"enabled":false,"permission_policy":{"type":"always_ask"}},"configs":[]},\
                    {"type":"custom","name":"lookup","description":"d","input_schema":{"type":"object","required":["q"]}}],\
                    "mcp_servers":[{"url":"https://mcp.example/sse","type":"url","name":"docs"}],"skills":[],\
                    "execution_identity":{"type":"service_account"},"multiagent":null,"version":3}""".formatted(agentId);
            String agent = """
                    {"id":"%s","type":"agent","name":"old","description":null,"system":"s","model":{"id":"claude-x","effort":{"type":"high"}},\
                    "mcp_servers":[{"url":"https://mcp.example/sse","type":"url","name":"docs"}],\
                    "tools":[{"type":"mcp_toolset","mcp_server_name":"docs","default_config":{"enabled":false,"permission_policy":{"type":"always_ask"}},"configs":[]},\
                    {"type":"custom","name":"lookup","description":"d","input_schema":{"type":"object","required":["q"]}}],\
                    "skills":[],"metadata":{"b":"2","a":"1"},"execution_identity":{"type":"service_account"},"multiagent":null,"version":3,\
                    "created_at":"%s","updated_at":"%s","archived_at":null}""".formatted(agentId, TIME, TIME);
            String env = """
                    {"id":"%s","type":"environment","name":"old-env","description":"d","config":{"type":"cloud",\
                    "networking":{"type":"limited","allowed_hosts":["api.example.com"],"allow_package_managers":true,"allow_mcp_servers":false},\
                    "packages":{"type":"packages","apt":[],"cargo":[],"gem":[],"go":[],"npm":["left-pad"],"pip":[]},"paddock_driver":"subprocess"},\
                    "metadata":{},"scope":"account","created_at":"%s","updated_at":"%s","archived_at":null}""".formatted(envId, TIME, TIME);
            String session = """
                    {"id":"%s","type":"session","agent":%s,"environment_id":"%s","status":"idle","title":null,"metadata":{"k":"v"},\
                    "resources":[],"vault_ids":[],"budget":null,"stats":{},"usage":{},"outcome_evaluations":[],\
                    "created_at":"%s","updated_at":"%s","archived_at":null}""".formatted(sessionId, snapshot, envId, TIME, TIME);
            var rows = f.store.agents().resources();
            rows.insert(new Resource(Resource.AGENT, agentId, "default", null, null, null, null, null, 3, 0, AT, AT, null, map(agent)));
            rows.insert(new Resource(Resource.ENVIRONMENT, envId, "default", "old-env", "cloud", null, null, null, 0, 0, AT, AT, null, map(env)));
            rows.insert(Session.create(sessionId, "default", envId, agentId, AT, map(session)).withSandbox("sbx_1").row());

            String server = "{\"name\":\"docs\",\"type\":\"url\",\"url\":\"https://mcp.example/sse\"}";
            assertThat(JSON.writeValueAsString(f.agents.agents().get(f.caller, agentId, null).toWire()))
                    .isEqualTo(agent.replace("{\"url\":\"https://mcp.example/sse\",\"type\":\"url\",\"name\":\"docs\"}", server));
            assertThat(JSON.writeValueAsString(f.agents.environments().get(f.caller, envId).toWire())).isEqualTo(env);
            // a row written before the loop kept usage reads as none used; its duration runs from its creation
            String noUsage = "\"stats\":{\"active_seconds\":0.0,\"duration_seconds\":SECONDS},\"usage\":{\"input_tokens\":0,\"output_tokens\":0,"
                    + "\"cache_read_input_tokens\":0,\"cache_creation\":{\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":0},\"active_seconds\":0.0}";
            assertThat(JSON.writeValueAsString(f.agents.sessions().get(f.caller, sessionId).toWire()).replaceAll("\"duration_seconds\":[0-9.]+", "\"duration_seconds\":SECONDS"))
                    .isEqualTo(session.replace("{\"url\":\"https://mcp.example/sse\",\"type\":\"url\",\"name\":\"docs\"}", server)
                            .replace("\"stats\":{},\"usage\":{}", noUsage)
                            .replaceFirst("}$", ",\"paddock_sandbox_id\":\"sbx_1\"}"));

            Environment read = f.agents.environments().get(f.caller, envId);
            assertThat(read.packages()).containsExactly(Map.entry("npm", List.of("left-pad")));
            assertThat(read.network().allowPackageManagers()).isTrue();
            SessionAgent runs = SessionAgent.of(f.agents.sessions().get(f.caller, sessionId).agent());
            assertThat(runs.tools()).extracting(t -> t.name()).containsExactly("lookup");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(String json) {
        return JSON.readValue(json, Map.class);
    }
}
