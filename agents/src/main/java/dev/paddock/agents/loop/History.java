package dev.paddock.agents.loop;

import dev.paddock.agents.mcp.McpToolNames;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.agents.ToolResultEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A session's conversation projected from its events: the messages to send to the model, and the tool calls of the
 * last model turn still waiting for a result. Tool-use ids in the conversation are the ids of the
 * {@code agent.tool_use} events, so the history needs nothing beyond the event log and survives restarts. It is
 * advanced one event at a time, in append order; an event it already holds (by {@code seq}, which the log starts
 * at 1) is skipped, so adding the log's events again is a no-op.
 */
public final class History {
    /** A tool call that has no result yet. */
    public record PendingUse(String eventId, String name, Map<String, Object> input, boolean custom) {}

    /** The user's verdict on a tool call: {@code allow} or {@code deny}, with an optional reason for a denial. */
    public record Confirmation(String result, String denyMessage) {
        public boolean denied() {
            return "deny".equals(result);
        }
    }

    private final List<ModelGateway.Message> messages = new ArrayList<>();
    private final Map<String, PendingUse> uses = new LinkedHashMap<>();
    private final Set<String> answered = new HashSet<>();
    private final Map<String, Confirmation> confirmations = new HashMap<>();
    private long seq;
    private String lastType;
    /** The last {@code session.status_*} event's type; null before the first. */
    private SessionEventType lastStatus;
    /** The id of the {@code span.model_request_start} that has no end yet; null when none is open. */
    private String openModelRequest;

    public History() {}

    public static History of(List<SessionEvent> events) {
        History h = new History();
        for (SessionEvent e : events) h.add(e);
        return h;
    }

    /** Takes the next event of the log into the projection. */
    public void add(SessionEvent e) {
        if (e.seq() <= seq) return;
        seq = e.seq();
        lastType = e.type();
        SessionEventType type = SessionEventType.fromWire(e.type()).orElse(null);
        if (type == null) return;
        Map<String, Object> b = e.body();
        switch (type) {
            case USER_MESSAGE -> append("user", textBlocks(b.get("content")));
            case AGENT_MESSAGE -> append("assistant", textBlocks(b.get("content")));
            case AGENT_TOOL_USE, AGENT_CUSTOM_TOOL_USE -> {
                Map<String, Object> input = map(b.get("input"));
                String name = String.valueOf(b.get("name"));
                uses.put(e.id(), new PendingUse(e.id(), name, input, type == SessionEventType.AGENT_CUSTOM_TOOL_USE));
                append("assistant", List.of(new Block.ToolUse(e.id(), name, input)));
            }
            case AGENT_MCP_TOOL_USE -> {
                // the model knows an MCP tool by its qualified name; the event keeps the server and tool apart
                Map<String, Object> input = map(b.get("input"));
                String name = McpToolNames.qualified(String.valueOf(b.get("mcp_server_name")), String.valueOf(b.get("name")));
                uses.put(e.id(), new PendingUse(e.id(), name, input, false));
                append("assistant", List.of(new Block.ToolUse(e.id(), name, input)));
            }
            case AGENT_MCP_TOOL_RESULT -> result(String.valueOf(b.get("mcp_tool_use_id")), b);
            case AGENT_TOOL_RESULT, USER_TOOL_RESULT -> result(String.valueOf(b.get("tool_use_id")), b);
            case USER_CUSTOM_TOOL_RESULT -> result(String.valueOf(b.get("custom_tool_use_id")), b);
            case SESSION_STATUS_RUNNING, SESSION_STATUS_RESCHEDULED, SESSION_STATUS_IDLE, SESSION_STATUS_TERMINATED -> lastStatus = type;
            case SPAN_MODEL_REQUEST_START -> openModelRequest = e.id();
            case SPAN_MODEL_REQUEST_END -> openModelRequest = null;
            case USER_TOOL_CONFIRMATION -> confirmations.put(String.valueOf(b.get("tool_use_id")),
                    new Confirmation(String.valueOf(b.get("result")), b.get("deny_message") instanceof String why ? why : null));
            default -> { }
        }
    }

    /** The {@code seq} of the last event taken in; 0 before the first. */
    public long seq() {
        return seq;
    }

    /** True when the last event taken in is of type {@code t}. */
    public boolean endsWith(SessionEventType t) {
        return t.wire().equals(lastType);
    }

    /**
     * True when the last status the session took is {@code rescheduling}: its turn was cut off by its node's loss and
     * a new owner has not run it on yet.
     */
    public boolean rescheduled() {
        return lastStatus == SessionEventType.SESSION_STATUS_RESCHEDULED;
    }

    /** The id of the model request started and never ended (its node was lost during it), or null. */
    public String openModelRequest() {
        return openModelRequest;
    }

    private void result(String useId, Map<String, Object> b) {
        if (!uses.containsKey(useId) || !answered.add(useId)) return;
        String text = joinText(b.get("content"));
        append("user", List.of(new Block.ToolResult(useId, text.isEmpty() ? ToolResultEvent.NO_OUTPUT : text, Boolean.TRUE.equals(b.get("is_error")))));
    }

    private void append(String role, List<Block> blocks) {
        if (blocks.isEmpty()) return;
        if (!messages.isEmpty() && messages.getLast().role().equals(role)) {
            List<Block> merged = new ArrayList<>(messages.getLast().blocks());
            // tool results must open a user turn, before any text that came with them
            if (role.equals("user") && blocks.getFirst() instanceof Block.ToolResult) {
                int at = 0;
                while (at < merged.size() && merged.get(at) instanceof Block.ToolResult) at++;
                merged.addAll(at, blocks);
            } else {
                merged.addAll(blocks);
            }
            messages.set(messages.size() - 1, new ModelGateway.Message(role, merged));
        } else {
            messages.add(new ModelGateway.Message(role, new ArrayList<>(blocks)));
        }
    }

    public List<ModelGateway.Message> messages() {
        return List.copyOf(messages);
    }

    /** Tool calls without a result, oldest first. */
    public List<PendingUse> pending() {
        return uses.values().stream().filter(u -> !answered.contains(u.eventId())).toList();
    }

    public boolean isAnswered(String useId) {
        return answered.contains(useId);
    }

    public boolean knowsUse(String useId) {
        return uses.containsKey(useId);
    }

    public PendingUse use(String useId) {
        return uses.get(useId);
    }

    /** The user's verdict on a tool call, or null. */
    public Confirmation confirmation(String useId) {
        return confirmations.get(useId);
    }

    /** True when the model owes the next turn: the conversation ends with the user's side. */
    public boolean modelToMove() {
        return !messages.isEmpty() && messages.getLast().role().equals("user");
    }

    private static List<Block> textBlocks(Object content) {
        List<Block> out = new ArrayList<>();
        if (content instanceof String s) {
            out.add(new Block.Text(s));
            return out;
        }
        if (!(content instanceof List<?> list)) return out;
        for (Object o : list) {
            Map<String, Object> block = map(o);
            if ("text".equals(block.get("type")) && block.get("text") instanceof String t && !t.isEmpty()) {
                out.add(new Block.Text(t));
            } else if (!block.isEmpty() && !"text".equals(block.get("type"))) {
                out.add(new Block.Text("[" + block.get("type") + " content omitted]"));
            }
        }
        return out;
    }

    static String joinText(Object content) {
        if (content instanceof String s) return s;
        if (!(content instanceof List<?> list)) return "";
        StringBuilder sb = new StringBuilder();
        for (Object o : list) {
            Map<String, Object> block = map(o);
            if (block.get("text") instanceof String t) {
                if (!sb.isEmpty()) sb.append('\n');
                sb.append(t);
            }
        }
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }
}
