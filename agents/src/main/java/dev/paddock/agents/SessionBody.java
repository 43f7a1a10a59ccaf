package dev.paddock.agents;

import dev.paddock.core.agents.Session;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A session as the SDKs know it: the snapshot of the agent it runs, its environment, status, title and metadata.
 * {@link #toWire()} is its one stored shape; Paddock does not fill resources, vaults, budget, stats, usage or
 * outcome evaluations yet, so those are written empty.
 *
 * @param createdAt ISO-8601, as on the wire; likewise {@code updatedAt} and {@code archivedAt} (null while live)
 */
record SessionBody(String id, Agent agent, String environmentId, String status, String title, Map<String, String> metadata,
                   String createdAt, String updatedAt, String archivedAt) {
    static final String TYPE = "session";

    SessionBody {
        metadata = new LinkedHashMap<>(metadata);
    }

    static SessionBody of(Session s) {
        return fromWire(s.body());
    }

    static SessionBody fromWire(Map<String, Object> m) {
        Map<String, String> metadata = Fields.storedMetadata(m.get("metadata"));
        return new SessionBody((String) m.get("id"), Agent.fromWire(AgentSpec.map(m.get("agent"))), (String) m.get("environment_id"),
                (String) m.get("status"), (String) m.get("title"), metadata, (String) m.get("created_at"), (String) m.get("updated_at"),
                (String) m.get("archived_at"));
    }

    SessionBody withTitleAndMetadata(String t, Map<String, String> md, String at) {
        return new SessionBody(id, agent, environmentId, status, t, md, createdAt, at, archivedAt);
    }

    SessionBody archive(String at) {
        return new SessionBody(id, agent, environmentId, status, title, metadata, createdAt, updatedAt, at);
    }

    Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", TYPE);
        m.put("agent", agent.snapshot());
        m.put("environment_id", environmentId);
        m.put("status", status);
        m.put("title", title);
        m.put("metadata", new LinkedHashMap<>(metadata));
        m.put("resources", new ArrayList<>());
        m.put("vault_ids", new ArrayList<>());
        m.put("budget", null);
        m.put("stats", new LinkedHashMap<>());
        m.put("usage", new LinkedHashMap<>());
        m.put("outcome_evaluations", new ArrayList<>());
        m.put("created_at", createdAt);
        m.put("updated_at", updatedAt);
        m.put("archived_at", archivedAt);
        return m;
    }

    /** {@code session.updated}: the title and metadata after the update. */
    Map<String, Object> updatedEvent() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", title);
        m.put("metadata", new LinkedHashMap<>(metadata));
        return m;
    }
}
