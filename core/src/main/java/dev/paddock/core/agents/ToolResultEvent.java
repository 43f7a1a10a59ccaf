package dev.paddock.core.agents;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of a built-in tool call as an event: {@code agent.tool_result} when the agent loop ran the tool in the
 * session's sandbox, {@code user.tool_result} when a self-hosted worker ran it. An empty output is sent as
 * {@link #NO_OUTPUT}, since the model refuses an empty tool result.
 */
public record ToolResultEvent(SessionEventType type, String toolUseId, String text, boolean isError) {
    public static final String NO_OUTPUT = "(no output)";

    public ToolResultEvent {
        if (type != SessionEventType.AGENT_TOOL_RESULT && type != SessionEventType.USER_TOOL_RESULT) {
            throw new IllegalArgumentException("not a tool result type: " + type);
        }
        if (text == null || text.isEmpty()) text = NO_OUTPUT;
    }

    /** The event's fields without its type, as the log stores them. */
    public Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tool_use_id", toolUseId);
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "text");
        block.put("text", text);
        body.put("content", List.of(block));
        body.put("is_error", isError);
        return body;
    }

    /** The event as a client sends it: its type first, then its fields. */
    public Map<String, Object> toSend() {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("type", type.wire());
        event.putAll(body());
        return event;
    }
}
