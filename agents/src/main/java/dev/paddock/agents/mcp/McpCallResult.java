package dev.paddock.agents.mcp;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What an MCP tool call answered: content blocks in the SDK's shape, and whether the tool reported an error. */
public record McpCallResult(List<Map<String, Object>> content, boolean isError) {
    public McpCallResult {
        content = List.copyOf(content);
    }

    /** A result that only says what went wrong, as an error. */
    public static McpCallResult error(String message) {
        return new McpCallResult(List.of(text(message)), true);
    }

    static Map<String, Object> text(String text) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "text");
        m.put("text", text);
        return m;
    }
}
