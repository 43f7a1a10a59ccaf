package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.store.EventStore;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * Append-only sandbox events, oldest first. An append checks the fence and inserts in one transaction, so an
 * owner that lost the sandbox cannot add to its history. Events are ordered by an append sequence: two events
 * within one millisecond would tie on their time-sorted ids.
 */
final class JdbcEventStore implements EventStore {
    static final String PREFIX = "evt";
    private static final String COLUMNS = "id, sandbox_id, tenant_id, type, at, data_json";

    private final Database db;
    private final Clock clock;

    JdbcEventStore(Database db, Clock clock) {
        this.db = db;
        this.clock = clock;
    }

    @Override
    public SandboxEvent append(String sandboxId, Fence fence, String type, Map<String, Object> data) {
        Require.present(sandboxId, "sandbox id");
        Require.present(fence, "fence");
        Require.text(type, "event type", 128);
        String json = Json.write(data == null ? Map.of() : data, "event_data", ErrorCode.INVALID_EVENT_DATA);
        return db.write("events.append", c -> {
            String tenantId = JdbcSandboxStore.requireHeld(c, db.dialect(), sandboxId, fence);
            db.dialect().orderAppends(c, "sandbox_events:" + sandboxId);
            Instant at = clock.instant().truncatedTo(ChronoUnit.MICROS);
            String id = Ids.newId(PREFIX, at);
            Sql.update(c, "INSERT INTO sandbox_events (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?)",
                    id, sandboxId, tenantId, type, Columns.micros(at), json);
            // The caller gets the data exactly as a later read will return it.
            return new SandboxEvent(id, sandboxId, tenantId, type, at, Json.readMap(json, "event_data"));
        });
    }

    @Override
    public Page<SandboxEvent> list(String sandboxId, PageRequest page) {
        Require.present(sandboxId, "sandbox id");
        Require.present(page, "page");
        Keyset keyset = new Keyset("SELECT " + COLUMNS + " FROM sandbox_events WHERE sandbox_id = ?", List.of(sandboxId),
                "seq", "(SELECT seq FROM sandbox_events WHERE id = ?)", false);
        return db.read("events.list", c -> {
            if (!Sql.exists(c, JdbcSandboxStore.TABLE, sandboxId)) throw PaddockException.notFound("sandbox", sandboxId);
            requireCursor(c, sandboxId, "after_id", page.afterId());
            requireCursor(c, sandboxId, "before_id", page.beforeId());
            return keyset.fetch(c, page, JdbcEventStore::map, SandboxEvent::id);
        });
    }

    /** Event cursors resolve to a sequence number, so an unknown one must be refused rather than match nothing. */
    private static void requireCursor(Connection c, String sandboxId, String parameter, String cursor) throws SQLException {
        if (cursor == null) return;
        boolean known = Sql.queryOne(c, "SELECT 1 FROM sandbox_events WHERE id = ? AND sandbox_id = ?",
                rs -> true, cursor, sandboxId).isPresent();
        if (!known) {
            throw new PaddockException(ErrorCode.INVALID_CURSOR,
                    parameter + " '" + Text.clip(cursor, 60) + "' is not an event of sandbox " + sandboxId);
        }
    }

    private static SandboxEvent map(ResultSet rs) throws SQLException {
        return new SandboxEvent(rs.getString("id"), rs.getString("sandbox_id"), rs.getString("tenant_id"),
                rs.getString("type"), Columns.getInstant(rs, "at"), Json.readMap(rs.getString("data_json"), "event_data"));
    }
}
