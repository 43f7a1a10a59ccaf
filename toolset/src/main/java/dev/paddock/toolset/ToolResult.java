package dev.paddock.toolset;

/**
 * What a tool call returns to the model: text content and whether it is an error. An error result is a normal
 * answer (the model reads it and corrects itself), not an exception.
 */
public record ToolResult(String content, boolean isError) {
    public ToolResult {
        content = content == null ? "" : content;
    }

    public static ToolResult ok(String content) {
        return new ToolResult(content, false);
    }

    public static ToolResult error(String content) {
        return new ToolResult(content, true);
    }
}
