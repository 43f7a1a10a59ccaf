package dev.paddock.agents.loop;

import java.util.Map;

/** One content block of a model message: text, a tool call, or a tool call's result. */
public sealed interface Block {
    record Text(String text) implements Block {}

    /** {@code input} is the tool's JSON input as the model sent it. */
    record ToolUse(String id, String name, Map<String, Object> input) implements Block {}

    record ToolResult(String toolUseId, String content, boolean isError) implements Block {}
}
