package dev.paddock.agents;

import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.toolset.AgentToolset;
import dev.paddock.toolset.ToolDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent a session runs, read once from the session's snapshot of it: its model, system prompt, the tools the
 * model is offered, and for each built-in tool whether it is enabled and whether the user confirms each call first.
 *
 * @param toolset the settings of the built-in tools by name; empty when the agent has no toolset
 */
public record SessionAgent(String modelId, String system, List<ModelGateway.ToolSpec> tools, Map<String, ToolSetting> toolset) {
    /** A built-in tool's setting; {@code asksFirst}: its permission policy is {@code always_ask}. */
    public record ToolSetting(boolean enabled, boolean asksFirst) {}

    public SessionAgent {
        tools = List.copyOf(tools);
        toolset = Map.copyOf(toolset);
    }

    /** Reads an agent snapshot ({@code agent} of a session's body). */
    public static SessionAgent of(Map<String, Object> snapshot) {
        Map<String, ToolSetting> toolset = toolsetSettings(snapshot);
        List<ModelGateway.ToolSpec> tools = new ArrayList<>();
        for (Object o : AgentSpec.list(snapshot.get("tools"))) {
            Map<String, Object> t = AgentSpec.map(o);
            if (AgentToolset.TYPE.equals(t.get("type"))) {
                for (ToolDefinition d : AgentToolset.definitions()) {
                    if (toolset.get(d.name()).enabled()) tools.add(new ModelGateway.ToolSpec(d.name(), d.description(), d.inputSchema()));
                }
            } else if ("custom".equals(t.get("type"))) {
                tools.add(new ModelGateway.ToolSpec((String) t.get("name"), (String) t.get("description"), AgentSpec.map(t.get("input_schema"))));
            }
        }
        return new SessionAgent(String.valueOf(AgentSpec.map(snapshot.get("model")).get("id")), (String) snapshot.get("system"), tools, toolset);
    }

    /** True when {@code name} is an enabled built-in tool, which Paddock (or a self-hosted worker) runs. */
    public boolean runsBuiltIn(String name) {
        ToolSetting s = toolset.get(name);
        return s != null && s.enabled();
    }

    /** True when a call of built-in tool {@code name} waits for the user's confirmation. */
    public boolean asksFirst(String name) {
        ToolSetting s = toolset.get(name);
        return s != null && s.asksFirst();
    }

    /** The first toolset entry decides: a tool's own config, else the toolset's default config. */
    private static Map<String, ToolSetting> toolsetSettings(Map<String, Object> snapshot) {
        for (Object o : AgentSpec.list(snapshot.get("tools"))) {
            Map<String, Object> t = AgentSpec.map(o);
            if (!AgentToolset.TYPE.equals(t.get("type"))) continue;
            Map<String, ToolSetting> out = new HashMap<>();
            for (String name : AgentToolset.toolNames()) {
                Map<String, Object> config = AgentSpec.map(t.get("default_config"));
                for (Object c : AgentSpec.list(t.get("configs"))) {
                    if (name.equals(AgentSpec.map(c).get("name"))) {
                        config = AgentSpec.map(c);
                        break;
                    }
                }
                String policy = String.valueOf(AgentSpec.map(config.get("permission_policy")).getOrDefault("type", "always_allow"));
                out.put(name, new ToolSetting(!Boolean.FALSE.equals(config.get("enabled")), "always_ask".equals(policy)));
            }
            return out;
        }
        return Map.of();
    }
}
