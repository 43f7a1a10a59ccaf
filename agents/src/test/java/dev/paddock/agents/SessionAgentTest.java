package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.toolset.AgentToolset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The loop's reading of an agent snapshot: which tools the model is offered, which run here, which ask first. */
class SessionAgentTest {
    static final Map<String, Object> CUSTOM = Map.of("type", "custom", "name", "lookup", "description", "looks up",
            "input_schema", Map.of("type", "object"));

    @Test
    void aToolsConfigOverridesTheToolsetsDefault() {
        SessionAgent agent = of(Map.of("model", Map.of("id", "claude-x"), "system", "be brief", "tools", List.of(
                Map.of("type", AgentToolset.TYPE,
                        "default_config", Map.of("enabled", true, "permission_policy", Map.of("type", "always_ask")),
                        "configs", List.of(Map.of("name", "read", "enabled", true, "permission_policy", Map.of("type", "always_allow")),
                                Map.of("name", "bash", "enabled", false))),
                CUSTOM)));
        assertThat(agent.modelId()).isEqualTo("claude-x");
        assertThat(agent.system()).isEqualTo("be brief");
        assertThat(agent.asksFirst("write")).as("the default asks").isTrue();
        assertThat(agent.asksFirst("read")).as("its own config allows").isFalse();
        assertThat(agent.runsBuiltIn("bash")).as("disabled").isFalse();
        assertThat(agent.runsBuiltIn("lookup")).as("a custom tool is the user's").isFalse();
        List<String> offered = agent.tools().stream().map(ModelGateway.ToolSpec::name).toList();
        assertThat(offered).doesNotContain("bash").contains("read", "write").endsWith("lookup");
    }

    @Test
    void anAgentWithoutTheToolsetOffersOnlyItsCustomToolsAndRunsNone() {
        SessionAgent agent = of(Map.of("model", Map.of("id", "claude-x"), "tools", List.of(CUSTOM)));
        assertThat(agent.tools()).extracting(ModelGateway.ToolSpec::name).containsExactly("lookup");
        assertThat(agent.runsBuiltIn("bash")).isFalse();
        assertThat(agent.asksFirst("bash")).isFalse();
        assertThat(agent.system()).isNull();
    }

    /** Reads a snapshot as a session's body stores it. */
    private static SessionAgent of(Map<String, Object> snapshot) {
        return SessionAgent.of(Agent.fromWire(snapshot));
    }
}
