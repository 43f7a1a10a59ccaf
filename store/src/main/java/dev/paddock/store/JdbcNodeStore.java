package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.nodes.NodeCapacity;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.NodeState;
import dev.paddock.core.nodes.NodeStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Nodes and their leases; every change is a compare-and-set on the row's epoch and state. */
final class JdbcNodeStore implements NodeStore {
    private static final String COLUMNS = "id, epoch, url, drivers_json, labels_json, memory_free_bytes, pids_free, "
            + "sandbox_count, state, joined_at, heartbeat_at, lease_expires_at, checkpoint_dir";
    private static final String CLUSTER_SECRET = "cluster_secret";

    private final Database db;

    JdbcNodeStore(Database db) {
        this.db = db;
    }

    @Override
    public NodeRecord join(NodeRecord p) {
        Require.text(p.id(), "node id", 64);
        Require.present(p.url(), "node url");
        return db.write("nodes.join", c -> {
            Optional<NodeRecord> old = Sql.queryOne(c, "SELECT " + COLUMNS + " FROM nodes WHERE id = ?"
                    + db.dialect().lockRowsSuffix(), JdbcNodeStore::map, p.id());
            NodeState state = old.map(NodeRecord::state).filter(s -> s == NodeState.DRAINING).orElse(NodeState.ACTIVE);
            NodeRecord joined = new NodeRecord(p.id(), old.map(o -> o.epoch() + 1).orElse(1L), p.url(), p.drivers(),
                    p.labels(), p.capacity(), state, p.joinedAt(), p.heartbeatAt(), p.leaseExpiresAt(), p.checkpointDir());
            if (old.isPresent()) {
                int n = Sql.update(c, "UPDATE nodes SET epoch = ?, url = ?, drivers_json = ?, labels_json = ?, memory_free_bytes = ?, "
                                + "pids_free = ?, sandbox_count = ?, state = ?, joined_at = ?, heartbeat_at = ?, lease_expires_at = ?, checkpoint_dir = ? "
                                + "WHERE id = ? AND epoch = ?",
                        joined.epoch(), joined.url(), Json.write(joined.drivers(), "drivers"), Json.write(joined.labels(), "labels"),
                        joined.capacity().memoryFreeBytes(), joined.capacity().pidsFree(), joined.capacity().sandboxes(),
                        state.wireName(), Columns.micros(joined.joinedAt()), Columns.micros(joined.heartbeatAt()),
                        Columns.micros(joined.leaseExpiresAt()), joined.checkpointDir(), p.id(), old.get().epoch());
                if (n != 1) throw new PaddockException(ErrorCode.CONCURRENT_UPDATE, "node " + p.id() + " changed while joining; start again");
            } else {
                Sql.update(c, "INSERT INTO nodes (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        joined.id(), joined.epoch(), joined.url(), Json.write(joined.drivers(), "drivers"),
                        Json.write(joined.labels(), "labels"), joined.capacity().memoryFreeBytes(), joined.capacity().pidsFree(),
                        joined.capacity().sandboxes(), state.wireName(), Columns.micros(joined.joinedAt()),
                        Columns.micros(joined.heartbeatAt()), Columns.micros(joined.leaseExpiresAt()), joined.checkpointDir());
            }
            return joined;
        });
    }

    @Override
    public boolean heartbeat(String id, long epoch, NodeCapacity capacity, Instant heartbeatAt, Instant leaseExpiresAt) {
        return db.write("nodes.heartbeat", c -> Sql.update(c, "UPDATE nodes SET memory_free_bytes = ?, pids_free = ?, "
                        + "sandbox_count = ?, heartbeat_at = ?, lease_expires_at = ? WHERE id = ? AND epoch = ? AND state <> ?",
                capacity.memoryFreeBytes(), capacity.pidsFree(), capacity.sandboxes(), Columns.micros(heartbeatAt),
                Columns.micros(leaseExpiresAt), id, epoch, NodeState.LOST.wireName()) == 1);
    }

    @Override
    public boolean setUrl(String id, long epoch, String url) {
        Require.text(url, "node url", 2048);
        return db.write("nodes.set_url", c -> Sql.update(c, "UPDATE nodes SET url = ? WHERE id = ? AND epoch = ?", url, id, epoch) == 1);
    }

    @Override
    public boolean markLost(String id, long epoch, Instant now) {
        return db.write("nodes.mark_lost", c -> Sql.update(c, "UPDATE nodes SET state = ? "
                        + "WHERE id = ? AND epoch = ? AND state <> ? AND lease_expires_at <= ?",
                NodeState.LOST.wireName(), id, epoch, NodeState.LOST.wireName(), Columns.micros(now)) == 1);
    }

    @Override
    public boolean setState(String id, NodeState state) {
        if (state == NodeState.LOST) throw new IllegalArgumentException("a node is marked lost through markLost");
        return db.write("nodes.set_state", c -> Sql.update(c, "UPDATE nodes SET state = ? WHERE id = ? AND state <> ?",
                state.wireName(), id, NodeState.LOST.wireName()) == 1);
    }

    @Override
    public Optional<NodeRecord> find(String id) {
        if (id == null) return Optional.empty();
        return db.read("nodes.find", c -> Sql.queryOne(c, "SELECT " + COLUMNS + " FROM nodes WHERE id = ?", JdbcNodeStore::map, id));
    }

    @Override
    public List<NodeRecord> list() {
        return db.read("nodes.list", c -> Sql.query(c, "SELECT " + COLUMNS + " FROM nodes ORDER BY id", JdbcNodeStore::map));
    }

    @Override
    public String clusterSecret(String proposed) {
        Require.text(proposed, "cluster secret", 512);
        return db.write("cluster.secret", c -> {
            Sql.update(c, "INSERT INTO cluster_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                    CLUSTER_SECRET, proposed);
            return Sql.queryOne(c, "SELECT value FROM cluster_settings WHERE name = ?", rs -> rs.getString(1), CLUSTER_SECRET)
                    .orElseThrow();
        });
    }

    private static NodeRecord map(ResultSet rs) throws SQLException {
        Map<String, String> labels = new LinkedHashMap<>();
        Json.readMap(rs.getString("labels_json"), "labels").forEach((k, v) -> labels.put(k, String.valueOf(v)));
        return new NodeRecord(
                rs.getString("id"),
                rs.getLong("epoch"),
                rs.getString("url"),
                Arrays.asList(Json.read(rs.getString("drivers_json"), String[].class, "drivers")),
                labels,
                new NodeCapacity(rs.getLong("memory_free_bytes"), rs.getLong("pids_free"), (int) rs.getLong("sandbox_count")),
                NodeState.fromWire(rs.getString("state")),
                Columns.getInstant(rs, "joined_at"),
                Columns.getInstant(rs, "heartbeat_at"),
                Columns.getInstant(rs, "lease_expires_at"),
                rs.getString("checkpoint_dir"));
    }
}
