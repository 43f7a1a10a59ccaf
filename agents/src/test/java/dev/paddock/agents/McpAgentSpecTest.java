package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.access.Principal;
import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.agents.mcp.McpToolNames;
import dev.paddock.agents.mcp.SessionMcp;
import dev.paddock.core.PaddockException;
import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An agent's MCP servers and mcp_toolset entries: what is refused, what is kept, and how their tools join the model's. */
class McpAgentSpecTest {
    final Principal caller = new Principal("default", "key_test", false);
    Path dir;
    JdbcStore store;
    AgentService agents;

    @BeforeEach
    void open() throws IOException {
        dir = Files.createTempDirectory("paddock-mcp-spec");
        store = JdbcStore.openSqlite(dir.resolve("paddock.db"));
        agents = new AgentService(store.agents().resources(), Clock.systemUTC());
    }

    @AfterEach
    void close() throws IOException {
        store.close();
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static final List<Object> SERVERS = List.of(Map.of("type", "url", "name", "docs", "url", "https://docs.example.com/mcp"));

    String code(Map<String, Object> body) {
        try {
            agents.create(caller, body);
        } catch (PaddockException e) {
            return e.code() + ": " + e.getMessage();
        }
        return "accepted";
    }

    @Test
    void badMcpDeclarationsAreRefusedWithTheFieldNamed() {
        assertThat(code(Map.of("name", "a", "model", "m", "mcp_servers", List.of(Map.of("type", "stdio", "name", "d", "url", "https://x.example")))))
                .isEqualTo("invalid_field: field 'mcp_servers[0].type' must be 'url'");
        assertThat(code(Map.of("name", "a", "model", "m", "mcp_servers", List.of(SERVERS.getFirst(), SERVERS.getFirst()))))
                .isEqualTo("invalid_field: field 'mcp_servers[1].name' repeats the MCP server name 'docs'");
        assertThat(code(Map.of("name", "a", "model", "m", "mcp_servers", SERVERS, "tools", List.of(
                Map.of("type", "mcp_toolset", "mcp_server_name", "docs"), Map.of("type", "mcp_toolset", "mcp_server_name", "docs")))))
                .isEqualTo("duplicate_tool: MCP server 'docs' has two mcp_toolset entries");
        assertThat(code(Map.of("name", "a", "model", "m", "mcp_servers", SERVERS, "tools", List.of(Map.of("type", "mcp_toolset", "mcp_server_name", "docs",
                "configs", List.of(Map.of("name", "search"), Map.of("name", "search")))))))
                .isEqualTo("duplicate_tool: field 'tools[0].configs[1].name' configures 'search' twice");
        assertThat(code(Map.of("name", "a", "model", "m", "tools", List.of(Map.of("type", "custom", "name", "mcp__docs__search",
                "description", "d", "input_schema", Map.of("type", "object"))))))
                .startsWith("invalid_field: field 'tools[0].name' must not start with 'mcp__'");
    }

    @Test
    void perToolConfigsAreKeptAndDecideEachTool() {
        Agent a = agents.create(caller, Map.of("name", "a", "model", "m", "mcp_servers", SERVERS, "tools", List.of(Map.of("type", "mcp_toolset",
                "mcp_server_name", "docs", "default_config", Map.of("permission_policy", Map.of("type", "always_ask")),
                "configs", List.of(Map.of("name", "search", "permission_policy", Map.of("type", "always_allow")), Map.of("name", "delete", "enabled", false))))));
        Agent read = agents.get(caller, a.id(), null);
        AgentTool.McpToolset toolset = (AgentTool.McpToolset) read.tools().getFirst();
        assertThat(toolset.configOf("search").policy()).isEqualTo("always_allow");
        assertThat(toolset.configOf("delete").enabled()).isFalse();
        assertThat(toolset.configOf("other").policy()).isEqualTo("always_ask");
        assertThat(read.toWire().toString()).contains("configs=[{name=search, enabled=true, permission_policy={type=always_allow}}");

        // offered tools join the agent's own and carry their policy; they are not built-in tools
        String search = McpToolNames.qualified("docs", "search");
        SessionAgent session = SessionAgent.of(read).withMcp(new SessionMcp.Offer(
                List.of(new ModelGateway.ToolSpec(search, "d", Map.of("type", "object"))),
                Map.of(search, new SessionMcp.OfferedTool(search, "docs", "search", true))));
        assertThat(session.tools()).extracting(ModelGateway.ToolSpec::name).containsExactly(search);
        assertThat(session.asksFirst(search)).isTrue();
        assertThat(session.runsBuiltIn(search)).isFalse();
    }
}
