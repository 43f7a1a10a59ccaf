package dev.paddock.core.agents;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every type a session event can have, by its wire name ({@code user.*} come from clients and workers,
 * {@code agent.*}, {@code session.*} and {@code span.*} from the agent loop and the session's lifecycle).
 */
public enum SessionEventType {
    USER_MESSAGE("user.message"),
    USER_INTERRUPT("user.interrupt"),
    USER_TOOL_CONFIRMATION("user.tool_confirmation"),
    USER_TOOL_RESULT("user.tool_result"),
    USER_CUSTOM_TOOL_RESULT("user.custom_tool_result"),
    AGENT_MESSAGE("agent.message"),
    AGENT_TOOL_USE("agent.tool_use"),
    AGENT_CUSTOM_TOOL_USE("agent.custom_tool_use"),
    AGENT_TOOL_RESULT("agent.tool_result"),
    AGENT_MCP_TOOL_USE("agent.mcp_tool_use"),
    AGENT_MCP_TOOL_RESULT("agent.mcp_tool_result"),
    SESSION_STATUS_RUNNING("session.status_running"),
    SESSION_STATUS_RESCHEDULED("session.status_rescheduled"),
    SESSION_STATUS_IDLE("session.status_idle"),
    SESSION_STATUS_TERMINATED("session.status_terminated"),
    SESSION_ERROR("session.error"),
    SESSION_WARNING("session.warning"),
    SESSION_UPDATED("session.updated"),
    SESSION_USAGE("session.usage"),
    SESSION_DELETED("session.deleted"),
    SPAN_MODEL_REQUEST_START("span.model_request_start"),
    SPAN_MODEL_REQUEST_END("span.model_request_end");

    private static final Map<String, SessionEventType> BY_WIRE = Arrays.stream(values())
            .collect(Collectors.toUnmodifiableMap(SessionEventType::wire, Function.identity()));

    private final String wire;

    SessionEventType(String wire) {
        this.wire = wire;
    }

    /** The name on the wire and in the store. */
    public String wire() {
        return wire;
    }

    /** The type of a wire name; empty for a name this server does not know. */
    public static Optional<SessionEventType> fromWire(String wire) {
        return Optional.ofNullable(wire == null ? null : BY_WIRE.get(wire));
    }

    /** Nothing more happens in the session after this event: a worker following it stops. */
    public boolean endsSession() {
        return this == SESSION_STATUS_TERMINATED || this == SESSION_DELETED;
    }

    @Override
    public String toString() {
        return wire;
    }
}
