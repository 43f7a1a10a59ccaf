package dev.paddock.toolset;

import java.util.Map;

/** A tool as advertised to a model or an MCP client: its name, what it does and the JSON schema of its input. */
public record ToolDefinition(String name, String description, Map<String, Object> inputSchema) {
    public ToolDefinition {
        inputSchema = Map.copyOf(inputSchema);
    }
}
