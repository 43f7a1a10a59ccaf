package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionMovedException;
import dev.paddock.core.agents.SessionEventStore;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Session events, ordered by an append sequence (two events in one millisecond would tie on their ids). */
final class JdbcSessionEventStore implements SessionEventStore {
    static final String PREFIX = "sevt";
    private static final String COLUMNS = "seq, id, session_id, tenant_id, type, processed_at, body_json";

    private final Database db;
    private final Clock clock;

    JdbcSessionEventStore(Database db, Clock clock) {
        this.db = db;
        this.clock = clock;
    }

    @Override
    public SessionEvent append(String sessionId, String tenantId, String type, Map<String, Object> body) {
        return append(null, sessionId, tenantId, type, body);
    }

    @Override
    public String newId() {
        return Ids.newId(PREFIX, clock.instant());
    }

    @Override
    public SessionEvent append(String givenId, String sessionId, String tenantId, String type, Map<String, Object> body) {
        return append(null, givenId, sessionId, tenantId, type, body);
    }

    @Override
    public SessionEvent appendAsOwner(String ownerId, String givenId, String sessionId, String tenantId, String type, Map<String, Object> body) {
        Require.present(ownerId, "owner id");
        return append(ownerId, givenId, sessionId, tenantId, type, body);
    }

    private SessionEvent append(String ownerId, String givenId, String sessionId, String tenantId, String type, Map<String, Object> body) {
        Require.present(sessionId, "session id");
        Require.text(type, "event type", 64);
        if (givenId != null && !Ids.isValid(PREFIX, givenId)) throw new IllegalArgumentException("not an event id: " + givenId);
        String json = Json.write(body == null ? Map.of() : body, "event_data", ErrorCode.INVALID_EVENT_DATA);
        return db.write("session_events.append", c -> {
            db.dialect().orderAppends(c, "session_events:" + sessionId);
            // a claim takes the same lock (JdbcSessionOwners): the owner cannot change between this check and the insert
            if (ownerId != null && !JdbcSessionOwners.owns(c, sessionId, ownerId)) throw new SessionMovedException(sessionId, ownerId);
            Instant at = clock.instant().truncatedTo(ChronoUnit.MICROS);
            String id = givenId != null ? givenId : Ids.newId(PREFIX, at);
            Sql.update(c, "INSERT INTO ma_session_events (id, session_id, tenant_id, type, processed_at, body_json) VALUES (?, ?, ?, ?, ?, ?)",
                    id, sessionId, tenantId, type, Columns.micros(at), json);
            return Sql.queryOne(c, "SELECT " + COLUMNS + " FROM ma_session_events WHERE id = ?", JdbcSessionEventStore::map, id).orElseThrow();
        });
    }

    @Override
    public Page<SessionEvent> list(String sessionId, PageRequest page, boolean newestFirst) {
        Keyset keyset = new Keyset("SELECT " + COLUMNS + " FROM ma_session_events WHERE session_id = ?", List.of(sessionId),
                "seq", "(SELECT seq FROM ma_session_events WHERE id = ?)", newestFirst);
        return db.read("session_events.list", c -> {
            requireCursor(c, sessionId, page.afterId());
            requireCursor(c, sessionId, page.beforeId());
            return keyset.fetch(c, page, JdbcSessionEventStore::map, SessionEvent::id);
        });
    }

    @Override
    public List<SessionEvent> after(String sessionId, long seq, int limit) {
        return db.read("session_events.after", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM ma_session_events WHERE session_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?",
                JdbcSessionEventStore::map, sessionId, seq, limit));
    }

    @Override
    public Optional<SessionEvent> find(String sessionId, String eventId) {
        return db.read("session_events.find", c -> Sql.queryOne(c,
                "SELECT " + COLUMNS + " FROM ma_session_events WHERE session_id = ? AND id = ?", JdbcSessionEventStore::map, sessionId, eventId));
    }

    private static void requireCursor(Connection c, String sessionId, String cursor) throws SQLException {
        if (cursor == null) return;
        if (Sql.queryOne(c, "SELECT 1 FROM ma_session_events WHERE id = ? AND session_id = ?", rs -> true, cursor, sessionId).isEmpty()) {
            throw new PaddockException(ErrorCode.INVALID_CURSOR, "page cursor '" + Text.clip(cursor, 60) + "' is not an event of session " + sessionId);
        }
    }

    private static SessionEvent map(ResultSet rs) throws SQLException {
        return new SessionEvent(rs.getLong("seq"), rs.getString("id"), rs.getString("session_id"), rs.getString("tenant_id"),
                rs.getString("type"), Columns.getInstant(rs, "processed_at"), Json.readMap(rs.getString("body_json"), "event_data"));
    }
}
