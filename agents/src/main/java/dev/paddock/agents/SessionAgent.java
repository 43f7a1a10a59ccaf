package dev.paddock.agents;

import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.agents.mcp.McpToolNames;
import dev.paddock.agents.mcp.SessionMcp;
import dev.paddock.toolset.AgentToolset;
import dev.paddock.toolset.ToolDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent a session runs, read once from the session's snapshot of it: its model, system prompt, the tools the
 * model is offered, and for each built-in tool (and, once {@link #withMcp added}, each MCP tool) whether it is enabled
 * and whether the user confirms each call first.
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

    /** Reads the agent a session runs (its snapshot). */
    public static SessionAgent of(Agent agent) {
        Map<String, ToolSetting> toolset = toolsetSettings(agent);
        List<ModelGateway.ToolSpec> tools = new ArrayList<>();
        for (AgentTool t : agent.tools()) {
            switch (t) {
                case AgentTool.Toolset ignored -> {
                    for (ToolDefinition d : AgentToolset.definitions()) {
                        if (toolset.get(d.name()).enabled()) tools.add(new ModelGateway.ToolSpec(d.name(), d.description(), d.inputSchema()));
                    }
                }
                case AgentTool.Custom c -> tools.add(new ModelGateway.ToolSpec(c.name(), c.description(), c.inputSchema()));
                case AgentTool.McpToolset ignored -> { }
            }
        }
        return new SessionAgent(agent.model().id(), agent.system(), tools, toolset);
    }

    /** The agent with its MCP servers' tools offered beside its own, each with its permission policy. */
    public SessionAgent withMcp(SessionMcp.Offer offer) {
        if (offer.specs().isEmpty()) return this;
        List<ModelGateway.ToolSpec> all = new ArrayList<>(tools);
        all.addAll(offer.specs());
        Map<String, ToolSetting> settings = new HashMap<>(toolset);
        offer.tools().forEach((name, tool) -> settings.put(name, new ToolSetting(true, tool.asksFirst())));
        return new SessionAgent(modelId, system, all, settings);
    }

    /** True when {@code name} is an enabled built-in tool, which Paddock (or a self-hosted worker) runs. */
    public boolean runsBuiltIn(String name) {
        ToolSetting s = toolset.get(name);
        return s != null && s.enabled() && !McpToolNames.isQualified(name);
    }

    /** True when a call of built-in or MCP tool {@code name} waits for the user's confirmation. */
    public boolean asksFirst(String name) {
        ToolSetting s = toolset.get(name);
        return s != null && s.asksFirst();
    }

    /** The first toolset entry decides: a tool's own config, else the toolset's default config. */
    private static Map<String, ToolSetting> toolsetSettings(Agent agent) {
        for (AgentTool t : agent.tools()) {
            if (!(t instanceof AgentTool.Toolset toolset)) continue;
            Map<String, ToolSetting> out = new HashMap<>();
            for (String name : AgentToolset.toolNames()) {
                AgentTool.Config config = toolset.configOf(name);
                out.put(name, new ToolSetting(config.enabled(), AgentTool.ALWAYS_ASK.equals(config.policy())));
            }
            return out;
        }
        return Map.of();
    }
}
