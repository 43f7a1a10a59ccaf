package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.agents.WorkItem;
import dev.paddock.core.agents.WorkStore;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** The self-hosted work queue in {@code ma_work}; every change is a compare-and-set on the revision. */
final class JdbcWorkStore implements WorkStore {
    private static final String COLUMNS = "id, tenant_id, environment_id, session_id, state, worker_id, generation, last_heartbeat, "
            + "lease_expires_at, ttl_seconds, created_at, claimed_at, acknowledged_at, started_at, stop_requested_at, stopped_at, "
            + "metadata_json, revision";

    private final Database db;

    JdbcWorkStore(Database db) {
        this.db = db;
    }

    @Override
    public void insert(WorkItem w) {
        db.write("work.insert", c -> {
            Sql.update(c, "INSERT INTO ma_work (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    w.id(), w.tenantId(), w.environmentId(), w.sessionId(), w.state(), w.workerId(), w.generation(),
                    w.lastHeartbeat(), Columns.microsOrNull(w.leaseExpiresAt()), w.ttlSeconds(), Columns.micros(w.createdAt()),
                    Columns.microsOrNull(w.claimedAt()), Columns.microsOrNull(w.acknowledgedAt()), Columns.microsOrNull(w.startedAt()),
                    Columns.microsOrNull(w.stopRequestedAt()), Columns.microsOrNull(w.stoppedAt()), Json.write(w.metadata(), "work_metadata", ErrorCode.INVALID_WORK_METADATA),
                    w.revision());
            return null;
        });
    }

    @Override
    public Optional<WorkItem> find(String environmentId, String workId) {
        return db.read("work.find", c -> Sql.queryOne(c, "SELECT " + COLUMNS + " FROM ma_work WHERE environment_id = ? AND id = ?",
                JdbcWorkStore::map, environmentId, workId));
    }

    @Override
    public List<WorkItem> liveForSession(String sessionId) {
        return db.read("work.live_for_session", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM ma_work WHERE session_id = ? AND state <> 'stopped' ORDER BY created_at", JdbcWorkStore::map, sessionId));
    }

    @Override
    public Optional<WorkItem> claim(String environmentId, Instant now, Instant unackedBefore, UnaryOperator<WorkItem> claim) {
        return db.write("work.claim", c -> {
            Optional<WorkItem> next = Sql.queryOne(c, "SELECT " + COLUMNS + " FROM ma_work WHERE environment_id = ? AND ("
                            + "state = 'queued'"
                            + " OR (state IN ('starting', 'active', 'stopping') AND lease_expires_at IS NOT NULL AND lease_expires_at < ?)"
                            + " OR (state = 'starting' AND ? IS NOT NULL AND claimed_at < ?)"
                            + ") ORDER BY created_at ASC, id ASC LIMIT 1",
                    JdbcWorkStore::map, environmentId, Columns.micros(now), Columns.microsOrNull(unackedBefore), Columns.microsOrNull(unackedBefore));
            if (next.isEmpty()) return Optional.<WorkItem>empty();
            WorkItem claimed = claim.apply(next.get());
            if (!cas(c, claimed)) return Optional.<WorkItem>empty();
            return Optional.of(reread(c, claimed.id()));
        });
    }

    @Override
    public boolean compareAndSet(WorkItem updated) {
        return db.write("work.update", c -> cas(c, updated));
    }

    @Override
    public Page<WorkItem> list(String environmentId, PageRequest page) {
        Keyset keyset = new Keyset("SELECT " + COLUMNS + " FROM ma_work WHERE environment_id = ?", List.of(environmentId), "id", "?", true);
        return db.read("work.list", c -> keyset.fetch(c, page, JdbcWorkStore::map, WorkItem::id));
    }

    @Override
    public Map<String, Long> countByState(String environmentId) {
        return db.read("work.stats", c -> {
            Map<String, Long> out = new LinkedHashMap<>();
            for (Object[] row : Sql.query(c, "SELECT state, COUNT(*) AS n FROM ma_work WHERE environment_id = ? GROUP BY state",
                    rs -> new Object[] {rs.getString("state"), rs.getLong("n")}, environmentId)) {
                out.put((String) row[0], (Long) row[1]);
            }
            return out;
        });
    }

    @Override
    public Optional<Instant> oldestQueued(String environmentId) {
        return db.read("work.oldest", c -> {
            List<Instant> t = Sql.query(c, "SELECT created_at FROM ma_work WHERE environment_id = ? AND state = 'queued' "
                    + "ORDER BY created_at ASC LIMIT 1", rs -> Columns.getInstant(rs, "created_at"), environmentId);
            return t.isEmpty() ? Optional.<Instant>empty() : Optional.of(t.getFirst());
        });
    }

    private static boolean cas(Connection c, WorkItem w) throws SQLException {
        return Sql.update(c, "UPDATE ma_work SET state = ?, worker_id = ?, generation = ?, last_heartbeat = ?, lease_expires_at = ?, "
                        + "ttl_seconds = ?, claimed_at = ?, acknowledged_at = ?, started_at = ?, stop_requested_at = ?, stopped_at = ?, "
                        + "metadata_json = ?, revision = revision + 1 WHERE id = ? AND revision = ?",
                w.state(), w.workerId(), w.generation(), w.lastHeartbeat(), Columns.microsOrNull(w.leaseExpiresAt()), w.ttlSeconds(),
                Columns.microsOrNull(w.claimedAt()), Columns.microsOrNull(w.acknowledgedAt()), Columns.microsOrNull(w.startedAt()),
                Columns.microsOrNull(w.stopRequestedAt()), Columns.microsOrNull(w.stoppedAt()), Json.write(w.metadata(), "work_metadata", ErrorCode.INVALID_WORK_METADATA),
                w.id(), w.revision()) == 1;
    }

    private static WorkItem reread(Connection c, String id) throws SQLException {
        return Sql.queryOne(c, "SELECT " + COLUMNS + " FROM ma_work WHERE id = ?", JdbcWorkStore::map, id).orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static WorkItem map(ResultSet rs) throws SQLException {
        Map<String, Object> raw = Json.readMap(rs.getString("metadata_json"), "work_metadata");
        Map<String, String> metadata = new LinkedHashMap<>();
        raw.forEach((k, v) -> metadata.put(k, String.valueOf(v)));
        return new WorkItem(rs.getString("id"), rs.getString("tenant_id"), rs.getString("environment_id"), rs.getString("session_id"),
                rs.getString("state"), rs.getString("worker_id"), rs.getLong("generation"), rs.getString("last_heartbeat"),
                Columns.getInstant(rs, "lease_expires_at"), rs.getLong("ttl_seconds"), Columns.getInstant(rs, "created_at"),
                Columns.getInstant(rs, "claimed_at"), Columns.getInstant(rs, "acknowledged_at"), Columns.getInstant(rs, "started_at"),
                Columns.getInstant(rs, "stop_requested_at"), Columns.getInstant(rs, "stopped_at"), metadata, rs.getLong("revision"));
    }
}
