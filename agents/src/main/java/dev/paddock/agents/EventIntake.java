package dev.paddock.agents;

import dev.paddock.agents.loop.History;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.access.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Events sent by clients and workers. All events of one request are checked before any is written, so a bad one
 * leaves the session untouched. Tool results must answer a tool call of this session that has no result yet;
 * a self-hosted session's tool results are taken from an environment-key caller only while a worker holds the
 * session's work lease.
 */
public final class EventIntake {
    private static final Set<String> TYPES = Set.of("user.message", "user.interrupt", "user.tool_confirmation", "user.tool_result",
            "user.custom_tool_result");
    private static final int MAX_EVENTS = 100;

    private final SessionService sessions;
    private final EventLog events;
    private final SessionEngine engine;
    private final WorkQueue work;

    public EventIntake(SessionService sessions, EventLog events, SessionEngine engine, WorkQueue work) {
        this.sessions = sessions;
        this.events = events;
        this.engine = engine;
        this.work = work;
        sessions.intake(this);
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
        Resource session = sessions.find(p, sessionId);
        if ("terminated".equals(session.state())) {
            throw new PaddockException(ErrorCode.SESSION_TERMINATED, "session " + sessionId + " is terminated and takes no more events");
        }
        List<Map<String, Object>> checked = validate(p, session, raw, workerId);
        List<Map<String, Object>> out = new ArrayList<>();
        boolean wake = false;
        boolean interrupt = false;
        for (Map<String, Object> e : checked) {
            Map<String, Object> fields = new LinkedHashMap<>(e);
            String type = (String) fields.remove("type");
            SessionEvent stored = events.append(session.id(), session.tenantId(), type, fields);
            out.add(EventLog.wire(stored));
            if (type.equals("user.interrupt")) interrupt = true;
            else wake = true;
        }
        if (interrupt) engine.interrupt(session.tenantId(), session.id());
        if (wake) {
            engine.wake(session.tenantId(), session.id());
            if (EnvironmentConfigs.SELF_HOSTED.equals(environmentType(session))) work.enqueue(session.tenantId(), session.parentId(), session.id());
        }
        return Map.of("data", out);
    }

    /** Checks every event; returns them normalised (type first). */
    List<Map<String, Object>> validate(Principal p, Resource session, List<Object> raw) {
        return validate(p, session, raw, null);
    }

    private List<Map<String, Object>> validate(Principal p, Resource session, List<Object> raw, String workerId) {
        if (raw.size() > MAX_EVENTS) throw new PaddockException(ErrorCode.TOO_MANY_EVENTS, "send at most " + MAX_EVENTS + " events at once");
        History h = null;
        Set<String> answeredHere = new java.util.HashSet<>();
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String where = "events[" + i + "]";
            Map<String, Object> e = Fields.object(raw.get(i), where);
            String type = Fields.requiredString(e, "type", 64);
            if (!TYPES.contains(type)) {
                throw new PaddockException(ErrorCode.UNKNOWN_EVENT_TYPE, "field '" + where + ".type' must be one of " + new java.util.TreeSet<>(TYPES)
                        + ", got '" + Text.clip(type, 60) + "'");
            }
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("type", type);
            switch (type) {
                case "user.message" -> {
                    Fields.allowOnly(e, Set.of("type", "content"), where);
                    n.put("content", content(e.get("content"), where + ".content", true));
                }
                case "user.interrupt" -> {
                    Fields.allowOnly(e, Set.of("type", "session_thread_id"), where);
                }
                case "user.tool_confirmation" -> {
                    Fields.allowOnly(e, Set.of("type", "tool_use_id", "result", "deny_message"), where);
                    if (h == null) h = History.of(events.all(session.id()));
                    String useId = knownUse(h, e, "tool_use_id", where, session);
                    String result = Fields.requiredString(e, "result", 8);
                    if (!result.equals("allow") && !result.equals("deny")) {
                        throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".result' must be allow or deny");
                    }
                    n.put("tool_use_id", useId);
                    n.put("result", result);
                    n.put("deny_message", Fields.optionalString(e, "deny_message", 4096));
                }
                case "user.tool_result", "user.custom_tool_result" -> {
                    String idField = type.equals("user.tool_result") ? "tool_use_id" : "custom_tool_use_id";
                    Fields.allowOnly(e, Set.of("type", idField, "content", "is_error"), where);
                    if (h == null) h = History.of(events.all(session.id()));
                    String useId = knownUse(h, e, idField, where, session);
                    History.PendingUse use = h.use(useId);
                    if (type.equals("user.tool_result") == use.custom()) {
                        throw new PaddockException(ErrorCode.WRONG_RESULT_TYPE, "tool call " + useId + " is a " + (use.custom() ? "custom" : "built-in")
                                + " tool call; answer it with " + (use.custom() ? "user.custom_tool_result" : "user.tool_result"));
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
                    if (!use.custom() && !EnvironmentConfigs.SELF_HOSTED.equals(environmentType(session))) {
                        throw new PaddockException(ErrorCode.TOOL_RUNS_IN_PADDOCK, "tool call " + useId + " runs in this session's Paddock sandbox; "
                                + "only self-hosted environments take user.tool_result");
                    }
                    n.put(idField, useId);
                    n.put("content", content(e.get("content"), where + ".content", false));
                    n.put("is_error", Fields.bool(e, "is_error", false));
                }
                default -> throw new IllegalStateException(type);
            }
            out.add(n);
        }
        return out;
    }

    private static String knownUse(History h, Map<String, Object> e, String field, String where, Resource session) {
        String useId = Fields.requiredString(e, field, 64);
        if (!h.knowsUse(useId)) {
            throw new PaddockException(ErrorCode.UNKNOWN_TOOL_USE_ID, "field '" + where + "." + field + "' names no tool call of session "
                    + session.id() + ": '" + Text.clip(useId, 60) + "'");
        }
        if (h.isAnswered(useId)) {
            throw new PaddockException(ErrorCode.TOOL_RESULT_ALREADY_SENT, "tool call " + useId + " already has a result");
        }
        return useId;
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
                    if (!(b.get("text") instanceof String)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + "[" + i + "].text' must be a string");
                    out.add(Map.of("type", "text", "text", b.get("text")));
                }
                case "image", "document", "search_result" -> out.add(b);
                default -> throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + "[" + i + "].type' must be text, image, document or search_result");
            }
        }
        return out;
    }

    private String environmentType(Resource session) {
        return sessions.environmentType(session);
    }
}
