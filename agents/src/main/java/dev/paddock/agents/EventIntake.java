package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.agents.loop.History;
import dev.paddock.agents.mcp.McpToolNames;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Events sent by clients and workers. All events of one request are checked before any is written, so a bad one
 * leaves the session untouched. Tool results must answer a tool call of this session that has no result yet;
 * a self-hosted session's tool results are taken from an environment-key caller only while a worker holds the
 * session's work lease.
 */
public final class EventIntake {
    /** The types clients and workers may send. */
    private static final Set<SessionEventType> TYPES = EnumSet.of(SessionEventType.USER_MESSAGE, SessionEventType.USER_INTERRUPT,
            SessionEventType.USER_TOOL_CONFIRMATION, SessionEventType.USER_TOOL_RESULT, SessionEventType.USER_CUSTOM_TOOL_RESULT);
    private static final Set<String> TYPE_NAMES = TYPES.stream().map(SessionEventType::wire).collect(Collectors.toCollection(TreeSet::new));
    private static final int MAX_EVENTS = 100;

    /** One checked event: its type and its normalised fields. */
    record Accepted(SessionEventType type, Map<String, Object> body) {}

    private final SessionFinder sessions;
    private final EventLog events;
    private final SessionEngine engine;
    private final WorkQueue work;

    EventIntake(SessionFinder sessions, EventLog events, SessionEngine engine, WorkQueue work) {
        this.sessions = sessions;
        this.events = events;
        this.engine = engine;
        this.work = work;
    }

    /** Appends the events and wakes the agent loop; answers {@code {data:[…]}} with the stored events. */
    public Map<String, Object> send(Principal p, String sessionId, Map<String, Object> body) {
        return send(p, sessionId, body, null);
    }

    /**
     * Like {@link #send(Principal, String, Map)}; a worker that names itself ({@code anthropic-worker-id}) may send
     * tool results only while it holds the session's work lease, so one whose lease passed to another is fenced out.
     */
    public Map<String, Object> send(Principal p, String sessionId, Map<String, Object> body, String workerId) {
        Fields.allowOnly(body, Set.of("events"), "");
        List<Object> raw = Fields.array(body.get("events"), "events");
        if (raw == null || raw.isEmpty()) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'events' must hold at least one event");
        Session session = sessions.find(p, sessionId);
        if (session.terminated()) {
            throw new PaddockException(ErrorCode.SESSION_TERMINATED, "session " + sessionId + " is terminated and takes no more events");
        }
        List<Accepted> checked = validate(p, session, raw, workerId, () -> engine.history(session.tenantId(), session.id()));
        List<Map<String, Object>> out = new ArrayList<>();
        boolean wake = false;
        boolean interrupt = false;
        for (Accepted e : checked) {
            SessionEvent stored = events.append(session.id(), session.tenantId(), e.type(), e.body());
            out.add(EventLog.wire(stored));
            if (e.type() == SessionEventType.USER_INTERRUPT) interrupt = true;
            else wake = true;
        }
        if (interrupt) engine.interrupt(session.tenantId(), session.id());
        if (wake) {
            engine.wake(session.tenantId(), session.id());
            if (selfHosted(session)) work.enqueue(session.tenantId(), session.environmentId(), session.id());
        }
        return Map.of("data", out);
    }

    /** Checks every event of a session being created; nothing is written. */
    void validate(Principal p, Session session, List<Object> raw) {
        // the session is not stored yet: a throwaway projection, so a refused create leaves no loop state behind
        validate(p, session, raw, null, () -> new HistoryProjection(events, session.id()));
    }

    private List<Accepted> validate(Principal p, Session session, List<Object> raw, String workerId, Supplier<HistoryProjection> histories) {
        if (raw.size() > MAX_EVENTS) throw new PaddockException(ErrorCode.TOO_MANY_EVENTS, "send at most " + MAX_EVENTS + " events at once");
        HistoryProjection history = null;
        Set<String> answeredHere = new HashSet<>();
        List<Accepted> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String where = "events[" + i + "]";
            Map<String, Object> e = Fields.object(raw.get(i), where);
            String name = Fields.requiredString(e, "type", 64);
            SessionEventType type = SessionEventType.fromWire(name).filter(TYPES::contains).orElseThrow(() -> new PaddockException(ErrorCode.UNKNOWN_EVENT_TYPE, "field '" + where + ".type' must be one of " + TYPE_NAMES + ", got '" + Text.clip(name, 60) + "'"));
            Map<String, Object> n = new LinkedHashMap<>();
            switch (type) {
                case USER_MESSAGE -> {
                    Fields.allowOnly(e, Set.of("type", "content"), where);
                    n.put("content", content(e.get("content"), where + ".content", true));
                }
                case USER_INTERRUPT -> Fields.allowOnly(e, Set.of("type", "session_thread_id"), where);
                case USER_TOOL_CONFIRMATION -> {
                    Fields.allowOnly(e, Set.of("type", "tool_use_id", "result", "deny_message"), where);
                    if (history == null) history = histories.get();
                    String useId = knownUse(history, e, "tool_use_id", where, session).eventId();
                    String result = Fields.requiredString(e, "result", 8);
                    if (!result.equals("allow") && !result.equals("deny")) {
                        throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".result' must be allow or deny");
                    }
                    n.put("tool_use_id", useId);
                    n.put("result", result);
                    n.put("deny_message", Fields.optionalString(e, "deny_message", 4096));
                }
                case USER_TOOL_RESULT, USER_CUSTOM_TOOL_RESULT -> {
                    boolean builtIn = type == SessionEventType.USER_TOOL_RESULT;
                    String idField = builtIn ? "tool_use_id" : "custom_tool_use_id";
                    Fields.allowOnly(e, Set.of("type", idField, "content", "is_error"), where);
                    if (history == null) history = histories.get();
                    History.PendingUse use = knownUse(history, e, idField, where, session);
                    String useId = use.eventId();
                    if (McpToolNames.isQualified(use.name())) {
                        throw new PaddockException(ErrorCode.WRONG_RESULT_TYPE, "tool call " + useId + " is an MCP tool call, which the server "
                                + "makes itself; it takes no result from a client");
                    }
                    if (builtIn == use.custom()) {
                        throw new PaddockException(ErrorCode.WRONG_RESULT_TYPE, "tool call " + useId + " is a " + (use.custom() ? "custom" : "built-in")
                                + " tool call; answer it with " + (use.custom() ? SessionEventType.USER_CUSTOM_TOOL_RESULT : SessionEventType.USER_TOOL_RESULT));
                    }
                    if (!answeredHere.add(useId)) {
                        throw new PaddockException(ErrorCode.TOOL_RESULT_ALREADY_SENT, "tool call " + useId + " is answered twice in this request");
                    }
                    if (!use.custom() && Callers.isEnvironmentKey(p) && !work.hasLiveLease(session.id(), workerId)) {
                        if (workerId != null && work.hasLiveLease(session.id(), null)) {
                            throw new PaddockException(ErrorCode.WORK_OWNED_BY_ANOTHER_WORKER, "worker '" + Text.clip(workerId, 60)
                                    + "' does not hold the lease on this session's work: another worker does, so its tool results count");
                        }
                        throw new PaddockException(ErrorCode.NO_LIVE_LEASE, "no worker holds a live lease on this session's work; "
                                + "poll, ack and heartbeat the work item before sending tool results");
                    }
                    if (!use.custom() && !selfHosted(session)) {
                        throw new PaddockException(ErrorCode.TOOL_RUNS_IN_PADDOCK, "tool call " + useId + " runs in this session's Paddock sandbox; "
                                + "only self-hosted environments take " + SessionEventType.USER_TOOL_RESULT);
                    }
                    n.put(idField, useId);
                    n.put("content", content(e.get("content"), where + ".content", false));
                    n.put("is_error", Fields.bool(e, "is_error", false));
                }
                default -> throw new IllegalStateException(name);
            }
            out.add(new Accepted(type, n));
        }
        return out;
    }

    /** The open tool call the event names, read once from the history. */
    private static History.PendingUse knownUse(HistoryProjection history, Map<String, Object> e, String field, String where, Session session) {
        String useId = Fields.requiredString(e, field, 64);
        return history.read(h -> {
            if (!h.knowsUse(useId)) {
                throw new PaddockException(ErrorCode.UNKNOWN_TOOL_USE_ID, "field '" + where + "." + field + "' names no tool call of session "
                        + session.id() + ": '" + Text.clip(useId, 60) + "'");
            }
            if (h.isAnswered(useId)) throw new PaddockException(ErrorCode.TOOL_RESULT_ALREADY_SENT, "tool call " + useId + " already has a result");
            return h.use(useId);
        });
    }

    private static List<Object> content(Object v, String where, boolean required) {
        List<Object> blocks = Fields.array(v, where);
        if (blocks == null || blocks.isEmpty()) {
            if (required) throw new PaddockException(ErrorCode.MISSING_FIELD, "field '" + where + "' must hold at least one content block");
            return new ArrayList<>();
        }
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            Map<String, Object> b = Fields.object(blocks.get(i), where + "[" + i + "]");
            String type = Fields.requiredString(b, "type", 32);
            switch (type) {
                case "text" -> {
                    Fields.allowOnly(b, Set.of("type", "text"), where + "[" + i + "]");
                    if (!(b.get("text") instanceof String text)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + "[" + i + "].text' must be a string");
                    out.add(AgentEvents.textBlock(text));
                }
                case "image", "document", "search_result" -> out.add(b);
                default -> throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + "[" + i + "].type' must be text, image, document or search_result");
            }
        }
        return out;
    }

    private boolean selfHosted(Session session) {
        return sessions.selfHosted(session);
    }
}
