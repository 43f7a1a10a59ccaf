package dev.paddock.agents;

import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.agents.mcp.McpCallResult;
import dev.paddock.agents.mcp.McpFailure;
import dev.paddock.core.agents.ToolResultEvent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The bodies of the events the agent loop writes, in their wire shapes. */
final class AgentEvents {
    private AgentEvents() {}

    /** {@code retry_status} of a {@code session.error}: the loop retries; the turn is dead; the session is terminated. */
    static final Map<String, Object> RETRYING = Map.of("type", "retrying");
    static final Map<String, Object> EXHAUSTED = Map.of("type", "exhausted");
    static final Map<String, Object> TERMINAL = Map.of("type", "terminal");

    /**
     * Why a session went idle: the turn ended, it waits for the user's action on tool calls, it gave up, or the model
     * refused ({@code refusal} then holds the details).
     */
    record StopReason(String type, List<String> eventIds, ModelGateway.Refusal refusal) {
        static final StopReason END_TURN = new StopReason("end_turn", null, null);
        static final StopReason RETRIES_EXHAUSTED = new StopReason("retries_exhausted", null, null);

        static StopReason requiresAction(List<String> eventIds) {
            return new StopReason("requires_action", List.copyOf(eventIds), null);
        }

        static StopReason refusal(ModelGateway.Refusal details) {
            return new StopReason("refusal", null, details == null ? new ModelGateway.Refusal(null, null) : details);
        }

        /** {@code stop_details}: the refusal's category and explanation, null for other reasons. */
        Map<String, Object> detailsToWire() {
            if (refusal == null) return null;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "refusal");
            m.put("category", refusal.category());
            m.put("explanation", refusal.explanation());
            return m;
        }

        Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", type);
            if (eventIds != null) m.put("event_ids", eventIds);
            return m;
        }
    }

    /** The tokens one model request used. */
    record ModelUsage(long inputTokens, long outputTokens, long cacheReadInputTokens, long cacheCreationInputTokens) {
        static final ModelUsage NONE = new ModelUsage(0, 0, 0, 0);

        Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("input_tokens", inputTokens);
            m.put("output_tokens", outputTokens);
            m.put("cache_read_input_tokens", cacheReadInputTokens);
            m.put("cache_creation_input_tokens", cacheCreationInputTokens);
            return m;
        }
    }

    /** {@code session.status_idle}. */
    static Map<String, Object> idle(StopReason reason) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("stop_reason", reason.toWire());
        body.put("stop_details", reason.detailsToWire());
        return body;
    }

    /** {@code session.warning}. */
    static Map<String, Object> warning(String code, String message) {
        Map<String, Object> warning = new LinkedHashMap<>();
        warning.put("code", code);
        warning.put("message", message);
        return warning;
    }

    /** {@code session.error} with its {@code retry_status} ({@link #RETRYING}, {@link #EXHAUSTED}, {@link #TERMINAL}). */
    static Map<String, Object> error(String type, String message, Map<String, Object> retryStatus) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", type);
        error.put("message", message);
        error.put("retry_status", retryStatus);
        return Map.of("error", error);
    }

    /** {@code session.error} about an MCP server: {@code mcp_connection_failed_error} or {@code mcp_authentication_failed_error}. */
    static Map<String, Object> mcpError(McpFailure f) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", f.kind().errorType());
        error.put("message", f.getMessage());
        error.put("mcp_server_name", f.serverName());
        error.put("retry_status", EXHAUSTED);
        return Map.of("error", error);
    }

    /** {@code agent.mcp_tool_use}: the server's name and the tool's own name; {@code permission} allow, ask or deny. */
    static Map<String, Object> mcpToolUse(String serverName, String toolName, Object input, String permission) {
        Map<String, Object> use = new LinkedHashMap<>();
        use.put("mcp_server_name", serverName);
        use.put("name", toolName);
        use.put("input", input);
        use.put("evaluated_permission", permission);
        return use;
    }

    /** {@code agent.mcp_tool_result}. */
    static Map<String, Object> mcpToolResult(String useId, McpCallResult r) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("mcp_tool_use_id", useId);
        result.put("content", r.content().isEmpty() ? List.of(textBlock(ToolResultEvent.NO_OUTPUT)) : r.content());
        result.put("is_error", r.isError());
        return result;
    }

    /** {@code span.model_request_end}. */
    static Map<String, Object> modelRequestEnd(String startId, boolean isError, ModelUsage usage) {
        Map<String, Object> end = new LinkedHashMap<>();
        end.put("model_request_start_id", startId);
        end.put("is_error", isError);
        end.put("model_usage", usage.toWire());
        return end;
    }

    /** {@code agent.message} with one text block. */
    static Map<String, Object> message(String text) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("content", List.of(textBlock(text)));
        return body;
    }

    /** A text content block. */
    static Map<String, Object> textBlock(String text) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "text");
        block.put("text", text);
        return block;
    }

    /**
     * {@code agent.tool_use} or {@code agent.custom_tool_use}; {@code permission} ({@code ask}/{@code allow}) only for
     * built-in tools.
     */
    static Map<String, Object> toolUse(String name, Object input, String permission) {
        Map<String, Object> use = new LinkedHashMap<>();
        use.put("name", name);
        use.put("input", input);
        if (permission != null) use.put("evaluated_permission", permission);
        return use;
    }
}
