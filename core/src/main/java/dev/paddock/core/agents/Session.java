package dev.paddock.core.agents;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A stored session, read through its meaning: the generic {@link Resource} row keeps the session's environment in
 * {@code parentId}, its agent in {@code refId}, its sandbox in {@code aux} and its status in {@code state}.
 */
public record Session(Resource row) {
    public static final String IDLE = "idle";
    public static final String RUNNING = "running";
    public static final String RESCHEDULING = "rescheduling";
    public static final String TERMINATED = "terminated";

    public Session {
        if (!Resource.SESSION.equals(row.kind())) throw new IllegalArgumentException("not a session: " + row.kind() + " " + row.id());
    }

    /** A new session's row. */
    public static Session create(String id, String tenantId, String environmentId, String agentId, Instant now, Map<String, Object> body) {
        return new Session(new Resource(Resource.SESSION, id, tenantId, null, IDLE, environmentId, agentId, null, 0, 0, now, now, null, body));
    }

    public String id() { return row.id(); }

    public String tenantId() { return row.tenantId(); }

    public String environmentId() { return row.parentId(); }

    public String agentId() { return row.refId(); }

    /** The sandbox its tools run in; null until the first tool call. */
    public String sandboxId() { return row.aux(); }

    /** One of {@link #IDLE}, {@link #RUNNING}, {@link #RESCHEDULING}, {@link #TERMINATED}. */
    public String status() { return row.state(); }

    public boolean terminated() { return TERMINATED.equals(row.state()); }

    /** The wire body (the session as the SDKs know it). */
    public Map<String, Object> body() { return row.body(); }

    public Session withSandbox(String sandboxId) { return new Session(row.withAux(sandboxId)); }

    /** This session with a new status, written into the wire body too. */
    public Session withStatus(String status, Instant at) {
        Map<String, Object> body = new LinkedHashMap<>(row.body());
        body.put("status", status);
        body.put("updated_at", DateTimeFormatter.ISO_INSTANT.format(at));
        return new Session(row.withState(status, at).withBody(body, at));
    }
}
