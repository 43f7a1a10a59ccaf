package dev.paddock.agents;

import dev.paddock.core.agents.Session;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A session as the SDKs know it: the snapshot of the agent it runs, its environment, status, title and metadata.
 * {@link #toStored()} is its stored shape and {@link #toWire()} the answer, which adds
 * {@code paddock_sandbox_id}, the sandbox its tools run in (null until the first tool call; kept in the row, not
 * the body), and leaves out the usage the row keeps for itself. Its files and {@code /mnt/session/outputs} are read through {@code /v1/sandboxes/{id}/files} and
 * {@code /outputs}, also after the session ended. {@code usage} and {@code stats} are kept by the agent loop (see
 * {@link SessionUsage}); {@code vault_ids} are the vaults whose credentials the loop sends to MCP servers;
 * {@code budget} is the SDKs' spend ceiling ({@link BudgetLimit}) and {@code paddock_limits} Paddock's limits on
 * requests, tokens and running time ({@link SessionLimits}), both null when not set; its {@code resources} are read
 * from their own rows when answered. Paddock does not fill outcome evaluations yet, so those are written empty.
 *
 * @param createdAt ISO-8601, as on the wire; likewise {@code updatedAt} and {@code archivedAt} (null while live)
 * @param readAt when the session was read, for {@code stats.duration_seconds}; null: not answered
 */
public record SessionResource(String id, Agent agent, String environmentId, String status, String title, Map<String, String> metadata,
                              String createdAt, String updatedAt, String archivedAt, String sandboxId, SessionUsage usage, Instant readAt,
                              List<String> vaultIds, BudgetLimit budget, SessionLimits limits, List<Map<String, Object>> resources) {
    static final String TYPE = "session";

    static final String SANDBOX_FIELD = "paddock_sandbox_id";

    public SessionResource {
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        vaultIds = vaultIds == null ? List.of() : List.copyOf(vaultIds);
        resources = resources == null ? List.of() : List.copyOf(resources);
    }

    /** Reads a stored session. */
    static SessionResource of(Session s) {
        Map<String, Object> m = s.body();
        Map<String, String> metadata = Fields.storedMetadata(m.get("metadata"));
        return new SessionResource((String) m.get("id"), Agent.fromWire(AgentSpec.map(m.get("agent"))), (String) m.get("environment_id"),
                (String) m.get("status"), (String) m.get("title"), metadata, (String) m.get("created_at"), (String) m.get("updated_at"),
                (String) m.get("archived_at"), s.sandboxId(), SessionUsage.fromStored(m.get("usage")), null, strings(m.get("vault_ids")),
                BudgetLimit.fromStored(m.get("budget")), SessionLimits.fromStored(m.get(SessionLimits.FIELD)), List.of());
    }

    SessionResource withTitleAndMetadata(String t, Map<String, String> md, String at) {
        return new SessionResource(id, agent, environmentId, status, t, md, createdAt, at, archivedAt, sandboxId, usage, readAt, vaultIds, budget, limits,
                resources);
    }

    SessionResource withBudget(BudgetLimit b, SessionLimits l) {
        return new SessionResource(id, agent, environmentId, status, title, metadata, createdAt, updatedAt, archivedAt, sandboxId, usage, readAt, vaultIds, b, l,
                resources);
    }

    SessionResource archive(String at) {
        return new SessionResource(id, agent, environmentId, status, title, metadata, createdAt, updatedAt, at, sandboxId, usage, readAt, vaultIds, budget, limits,
                resources);
    }

    /** The session as read at {@code now}: its answer carries the time since it was created. */
    SessionResource readAt(Instant now) {
        return new SessionResource(id, agent, environmentId, status, title, metadata, createdAt, updatedAt, archivedAt, sandboxId, usage, now, vaultIds,
                budget, limits, resources);
    }

    /** The session with its resources as answered ({@link SessionMount#toWire()}). */
    SessionResource withResources(List<Map<String, Object>> r) {
        return new SessionResource(id, agent, environmentId, status, title, metadata, createdAt, updatedAt, archivedAt, sandboxId, usage, readAt, vaultIds,
                budget, limits, r);
    }

    /** The session as answered. */
    public Map<String, Object> toWire() {
        Map<String, Object> m = toStored();
        if (readAt != null) {
            // a terminated session's duration stops at its last update
            Instant until = Session.TERMINATED.equals(status) && updatedAt != null ? Instant.parse(updatedAt) : readAt;
            m.put("stats", usage.statsToWire(createdAt, until));
        }
        m.put("usage", usage.usageToWire());
        m.put(SANDBOX_FIELD, sandboxId);
        return m;
    }

    /** The session as its row's body keeps it. */
    Map<String, Object> toStored() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", TYPE);
        m.put("agent", agent.snapshot());
        m.put("environment_id", environmentId);
        m.put("status", status);
        m.put("title", title);
        m.put("metadata", new LinkedHashMap<>(metadata));
        m.put("resources", new ArrayList<>(resources));
        m.put("vault_ids", new ArrayList<>(vaultIds));
        m.put("budget", budget == null ? null : budget.toWire());
        if (limits != null) m.put(SessionLimits.FIELD, limits.toWire()); // an extension: absent unless set, so the SDKs' shape stays exact
        m.put("stats", usage.statsToWire(null, null));
        m.put("usage", usage.toStored());
        m.put("outcome_evaluations", new ArrayList<>());
        m.put("created_at", createdAt);
        m.put("updated_at", updatedAt);
        m.put("archived_at", archivedAt);
        return m;
    }

    private static List<String> strings(Object stored) {
        List<String> out = new ArrayList<>();
        if (stored instanceof List<?> l) l.forEach(v -> out.add(String.valueOf(v)));
        return out;
    }

    /** {@code session.updated}: the title and metadata after the update, and the budget when the update changed it. */
    Map<String, Object> updatedEvent(boolean budgetChanged) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", title);
        m.put("metadata", new LinkedHashMap<>(metadata));
        if (budgetChanged) m.put("budget", budget == null ? null : budget.toWire());
        return m;
    }
}
