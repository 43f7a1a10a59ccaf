package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.FenceLostException;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.SandboxStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Sandboxes. Every update is a compare-and-set on the fence (owner_id, generation): a writer holding a stale
 * fence changes nothing and gets {@link FenceLostException}.
 */
final class JdbcSandboxStore implements SandboxStore {
    static final String TABLE = "sandboxes";
    private static final String COLUMNS = "id, tenant_id, driver, state, spec_json, owner_id, generation, handle, "
            + "timeout_ms, idle_suspend_after_ms, idle_terminate_after_ms, created_at, updated_at, last_activity_at, state_reason";
    /** SQL list of the terminal states, built from the enum so the state machine stays the single source. */
    private static final String TERMINAL_STATES = Arrays.stream(SandboxState.values())
            .filter(SandboxState::isTerminal)
            .map(s -> "'" + s.wireName() + "'")
            .collect(Collectors.joining(", ", "(", ")"));

    private final Database db;
    private final Clock clock;

    JdbcSandboxStore(Database db, Clock clock) {
        this.db = db;
        this.clock = clock;
    }

    @Override
    public void insert(SandboxRecord r) {
        validate(r);
        db.write("sandboxes.insert", c -> {
            try {
                return Sql.update(c, "INSERT INTO sandboxes (" + COLUMNS + ", node_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        r.id(), r.tenantId(), r.driver(), r.state().wireName(), Json.write(r.spec(), "sandbox_spec"),
                        r.fence().ownerId(), r.fence().generation(), r.handle(),
                        Columns.millisOrNull(r.timeout()), Columns.millisOrNull(r.idleSuspendAfter()),
                        Columns.millisOrNull(r.idleTerminateAfter()), Columns.micros(r.createdAt()),
                        Columns.micros(r.updatedAt()), Columns.microsOrNull(r.lastActivityAt()), r.stateReason(),
                        r.fence().nodeId());
            } catch (SQLException e) {
                if (db.dialect().isUniqueViolation(e)) {
                    throw new PaddockException(ErrorCode.SANDBOX_EXISTS, "sandbox " + r.id() + " already exists");
                }
                throw e;
            }
        });
    }

    private static void validate(SandboxRecord r) {
        Require.present(r, "sandbox record");
        Require.text(r.id(), "sandbox id", 64);
        Require.text(r.tenantId(), "tenant id", 128);
        Require.text(r.driver(), "driver", 64);
        Require.present(r.state(), "state");
        Require.present(r.spec(), "spec");
        Require.present(r.fence(), "fence");
        Require.present(r.createdAt(), "created_at");
        Require.present(r.updatedAt(), "updated_at");
        // A spec that names another sandbox or tenant would let one tenant's settings reach another's sandbox.
        if (!r.id().equals(r.spec().sandboxId()) || !r.tenantId().equals(r.spec().tenantId())) {
            throw new PaddockException(ErrorCode.SPEC_MISMATCH,
                    "the spec of sandbox " + r.id() + " must name the same sandbox id and tenant as the record");
        }
    }

    @Override
    public Optional<SandboxRecord> find(String id) {
        if (id == null) return Optional.empty();
        return db.read("sandboxes.find", c -> selectById(c, id, false));
    }

    @Override
    public Page<SandboxRecord> list(String tenantId, PageRequest page, boolean includeEnded) {
        Require.present(tenantId, "tenant id");
        Require.present(page, "page");
        String select = "SELECT " + COLUMNS + " FROM sandboxes WHERE tenant_id = ?"
                + (includeEnded ? "" : " AND state NOT IN " + TERMINAL_STATES);
        Keyset keyset = new Keyset(select, List.of(tenantId), "id", "?", true);
        return db.read("sandboxes.list", c -> keyset.fetch(c, page, JdbcSandboxStore::map, SandboxRecord::id));
    }

    @Override
    public List<SandboxRecord> listActive() {
        return db.read("sandboxes.list_active", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM sandboxes WHERE state NOT IN " + TERMINAL_STATES + " ORDER BY id",
                JdbcSandboxStore::map));
    }

    @Override
    public List<SandboxRecord> listActiveOn(String nodeId) {
        Require.present(nodeId, "node id");
        return db.read("sandboxes.list_active_on", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM sandboxes WHERE node_id = ? AND state NOT IN " + TERMINAL_STATES + " ORDER BY id",
                JdbcSandboxStore::map, nodeId));
    }

    @Override
    public SandboxRecord transition(String id, Fence fence, SandboxState to, String reason) {
        Require.present(id, "sandbox id");
        Require.present(fence, "fence");
        Require.present(to, "target state");
        return db.write("sandboxes.transition", c -> {
            SandboxRecord current = heldRow(c, id, fence);
            if (!current.state().canMoveTo(to)) {
                throw new PaddockException(ErrorCode.INVALID_TRANSITION, "cannot move sandbox " + id + " from "
                        + current.state().wireName() + " to " + to.wireName());
            }
            Instant now = now();
            // Compare-and-set on fence and state, so the update is safe even without the row lock.
            int n = Sql.update(c, "UPDATE sandboxes SET state = ?, state_reason = ?, updated_at = ? "
                            + "WHERE id = ? AND owner_id = ? AND generation = ? AND state = ?",
                    to.wireName(), reason, Columns.micros(now), id, fence.ownerId(), fence.generation(),
                    current.state().wireName());
            if (n != 1) throw new FenceLostException(id, fence);
            return current.withState(to, reason, now);
        });
    }

    @Override
    public Optional<SandboxRecord> replaceReason(String id, Fence fence, SandboxState state, String expectedReason, String reason) {
        Require.present(id, "sandbox id");
        Require.present(fence, "fence");
        Require.present(state, "state");
        return db.write("sandboxes.replace_reason", c -> {
            SandboxRecord current = heldRow(c, id, fence);
            if (current.state() != state || !Objects.equals(current.stateReason(), expectedReason)) return Optional.empty();
            Instant now = now();
            // compare-and-set on fence, state and reason (COALESCE: a typed comparison that also matches "no reason")
            int n = Sql.update(c, "UPDATE sandboxes SET state_reason = ?, updated_at = ? "
                            + "WHERE id = ? AND owner_id = ? AND generation = ? AND state = ? AND COALESCE(state_reason, '') = ?",
                    reason, Columns.micros(now), id, fence.ownerId(), fence.generation(), state.wireName(),
                    expectedReason == null ? "" : expectedReason);
            if (n != 1) return Optional.empty();
            return Optional.of(current.withState(state, reason, now));
        });
    }

    @Override
    public void setHandle(String id, Fence fence, String handle) {
        Require.present(fence, "fence");
        fencedUpdate("sandboxes.set_handle", id, fence,
                "UPDATE sandboxes SET handle = ?, updated_at = ? WHERE id = ? AND owner_id = ? AND generation = ?",
                handle, Columns.micros(now()));
    }

    @Override
    public void setNetwork(String id, Fence fence, NetworkPolicy network) {
        Require.present(fence, "fence");
        Require.present(network, "network");
        db.write("sandboxes.set_network", c -> {
            SandboxRecord r = heldRow(c, id, fence);
            SandboxSpec s = r.spec();
            SandboxSpec changed = new SandboxSpec(s.sandboxId(), s.tenantId(), s.image(), s.writableRootfs(), s.limits(), s.env(),
                    network, s.credentials(), s.egress(), s.template());
            Sql.update(c, "UPDATE sandboxes SET spec_json = ?, updated_at = ? WHERE id = ?",
                    Json.write(changed, "sandbox_spec"), Columns.micros(now()), id);
            return null;
        });
    }

    @Override
    public void setNodeLabels(String id, Fence fence, Map<String, String> labels) {
        Require.present(fence, "fence");
        String json = labels == null || labels.isEmpty() ? null : Json.write(new TreeMap<>(labels), "node_labels");
        db.write("sandboxes.set_node_labels", c -> {
            heldRow(c, id, fence);
            Sql.update(c, "UPDATE sandboxes SET node_labels_json = ? WHERE id = ?", json, id);
            return null;
        });
    }

    @Override
    public Map<String, String> nodeLabels(String id) {
        Optional<String> json = db.read("sandboxes.node_labels", c -> Sql.queryOne(c,
                "SELECT node_labels_json FROM sandboxes WHERE id = ?", rs -> Optional.ofNullable(rs.getString(1)), id)).flatMap(o -> o);
        Map<String, String> out = new TreeMap<>();
        json.ifPresent(j -> Json.readMap(j, "node_labels").forEach((k, v) -> out.put(k, String.valueOf(v))));
        return out;
    }

    @Override
    public void touch(String id, Fence fence, Instant at) {
        Require.present(fence, "fence");
        long micros = Columns.micros(Require.present(at, "activity time"));
        // Never moves backwards: touches from concurrent calls may arrive out of order.
        fencedUpdate("sandboxes.touch", id, fence,
                "UPDATE sandboxes SET last_activity_at = CASE WHEN last_activity_at IS NULL OR last_activity_at < ? "
                        + "THEN ? ELSE last_activity_at END WHERE id = ? AND owner_id = ? AND generation = ?",
                micros, micros);
    }

    @Override
    public Fence takeOver(String id, Fence expected, String newOwner) {
        Require.present(expected, "expected fence");
        Require.text(newOwner, "new owner", 256);
        Fence next = expected.next(newOwner);
        fencedUpdate("sandboxes.take_over", id, expected,
                "UPDATE sandboxes SET owner_id = ?, node_id = ?, generation = ?, updated_at = ? "
                        + "WHERE id = ? AND owner_id = ? AND generation = ?",
                next.ownerId(), next.nodeId(), next.generation(), Columns.micros(now()));
        return next;
    }

    /** Runs an UPDATE whose last three parameters are id, owner and generation; 0 rows means lost or missing. */
    private void fencedUpdate(String operation, String id, Fence fence, String sql, Object... leading) {
        Require.present(id, "sandbox id");
        Object[] params = Arrays.copyOf(leading, leading.length + 3);
        params[leading.length] = id;
        params[leading.length + 1] = fence.ownerId();
        params[leading.length + 2] = fence.generation();
        db.write(operation, c -> {
            if (Sql.update(c, sql, params) == 1) return null;
            if (Sql.exists(c, TABLE, id)) throw new FenceLostException(id, fence);
            throw PaddockException.notFound("sandbox", id);
        });
    }

    /** Checks that {@code fence} holds sandbox {@code id} and returns its tenant; used by writes fenced on it. */
    static String requireHeld(Connection c, Dialect dialect, String id, Fence fence) throws SQLException {
        record Holder(String tenantId, Fence fence) {}
        Holder holder = Sql.queryOne(c, "SELECT tenant_id, owner_id, generation FROM sandboxes WHERE id = ?"
                                + dialect.lockRowsSuffix(),
                        rs -> new Holder(rs.getString(1), new Fence(rs.getString(2), rs.getLong(3))), id)
                .orElseThrow(() -> PaddockException.notFound("sandbox", id));
        if (!holder.fence().equals(fence)) throw new FenceLostException(id, fence);
        return holder.tenantId();
    }

    /** The sandbox's row, locked, which {@code fence} must still hold. */
    private SandboxRecord heldRow(Connection c, String id, Fence fence) throws SQLException {
        SandboxRecord current = selectById(c, id, true).orElseThrow(() -> PaddockException.notFound("sandbox", id));
        if (!current.fence().equals(fence)) throw new FenceLostException(id, fence);
        return current;
    }

    private Optional<SandboxRecord> selectById(Connection c, String id, boolean lock) throws SQLException {
        return Sql.queryOne(c, "SELECT " + COLUMNS + " FROM sandboxes WHERE id = ?"
                + (lock ? db.dialect().lockRowsSuffix() : ""), JdbcSandboxStore::map, id);
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    static SandboxRecord map(ResultSet rs) throws SQLException {
        String id = rs.getString("id");
        return new SandboxRecord(
                id,
                rs.getString("tenant_id"),
                rs.getString("driver"),
                state(rs.getString("state"), id),
                Json.read(rs.getString("spec_json"), SandboxSpec.class, "sandbox_spec"),
                new Fence(rs.getString("owner_id"), rs.getLong("generation")),
                rs.getString("handle"),
                Columns.getDuration(rs, "timeout_ms"),
                Columns.getDuration(rs, "idle_suspend_after_ms"),
                Columns.getDuration(rs, "idle_terminate_after_ms"),
                Columns.getInstant(rs, "created_at"),
                Columns.getInstant(rs, "updated_at"),
                Columns.getInstant(rs, "last_activity_at"),
                rs.getString("state_reason"));
    }

    private static SandboxState state(String stored, String id) {
        try {
            return SandboxState.valueOf(stored.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw PaddockException.internal("sandbox " + id + " has an unknown stored state '" + Text.clip(stored, 20) + "'", e);
        }
    }
}
