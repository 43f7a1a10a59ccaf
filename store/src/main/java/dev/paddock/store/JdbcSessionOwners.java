package dev.paddock.store;

import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionOwners;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Session owners in the {@code owner_id}, {@code owner_node} and {@code wake_requested} columns of a session's
 * {@code ma_resources} row (schema version 8). They are written apart from the session's document and its revision,
 * so a claim never collides with a status or usage update (the owner's own updates check the owner in the same
 * statement: {@link JdbcResourceStore#updateAsOwner}). {@code wake_requested} is 0 (none), {@value #WAKE} (go round)
 * or {@value #WAKE_INTERRUPT} (an interrupt: stop the turn under way, then go round). A claim takes the session's append lock, as an owner's
 * append does ({@link JdbcSessionEventStore#appendAsOwner}).
 */
final class JdbcSessionOwners implements SessionOwners {
    private static final String COLUMNS = "id, tenant_id, owner_id, state, wake_requested";
    static final int WAKE = 1;
    static final int WAKE_INTERRUPT = 2;
    private final Database db;

    JdbcSessionOwners(Database db) {
        this.db = db;
    }

    @Override
    public Optional<Owned> find(String sessionId) {
        return db.read("session_owners.find", c -> Sql.queryOne(c,
                "SELECT " + COLUMNS + " FROM ma_resources WHERE kind = ? AND id = ?", JdbcSessionOwners::map, Resource.SESSION, sessionId));
    }

    @Override
    public boolean claim(String sessionId, String expectedOwner, String newOwner, boolean wake) {
        return db.write("session_owners.claim", c -> {
            db.dialect().orderAppends(c, "session_events:" + sessionId);
            String sql = "UPDATE ma_resources SET owner_id = ?, owner_node = ?, wake_requested = ? WHERE kind = ? AND id = ? AND "
                    + (expectedOwner == null ? "owner_id IS NULL" : "owner_id = ?");
            Object[] params = expectedOwner == null
                    ? new Object[] {newOwner, nodeOf(newOwner), wake ? 1 : 0, Resource.SESSION, sessionId}
                    : new Object[] {newOwner, nodeOf(newOwner), wake ? 1 : 0, Resource.SESSION, sessionId, expectedOwner};
            return Sql.update(c, sql, params) == 1;
        });
    }

    @Override
    public boolean requestWake(String sessionId, String ownerId, boolean interrupt) {
        int level = interrupt ? WAKE_INTERRUPT : WAKE;
        return db.write("session_owners.request_wake", c -> Sql.update(c,
                "UPDATE ma_resources SET wake_requested = CASE WHEN wake_requested > ? THEN wake_requested ELSE ? END "
                        + "WHERE kind = ? AND id = ? AND owner_id = ?", level, level, Resource.SESSION, sessionId, ownerId) == 1);
    }

    @Override
    public boolean takeWake(String sessionId, String ownerId, boolean interrupt) {
        return db.write("session_owners.take_wake", c -> Sql.update(c,
                "UPDATE ma_resources SET wake_requested = 0 WHERE kind = ? AND id = ? AND owner_id = ? AND wake_requested = ?",
                Resource.SESSION, sessionId, ownerId, interrupt ? WAKE_INTERRUPT : WAKE) == 1);
    }

    @Override
    public List<Owned> wakesFor(String ownerId) {
        return db.read("session_owners.wakes", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM ma_resources WHERE owner_node = ? AND owner_id = ? AND wake_requested <> 0 AND kind = ?",
                JdbcSessionOwners::map, nodeOf(ownerId), ownerId, Resource.SESSION));
    }

    @Override
    public List<Owned> ownedOnNode(String nodeId) {
        return db.read("session_owners.on_node", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM ma_resources WHERE owner_node = ? AND kind = ? ORDER BY id", JdbcSessionOwners::map, nodeId, Resource.SESSION));
    }

    @Override
    public List<Owned> inFlight() {
        return db.read("session_owners.in_flight", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM ma_resources WHERE kind = ? AND state IN (?, ?) ORDER BY id", JdbcSessionOwners::map,
                Resource.SESSION, Session.RUNNING, Session.RESCHEDULING));
    }

    /** Whether {@code ownerId} owns the session (inside a write that holds the session's append lock). */
    static boolean owns(Connection c, String sessionId, String ownerId) throws SQLException {
        return Sql.queryOne(c, "SELECT 1 FROM ma_resources WHERE kind = ? AND id = ? AND owner_id = ?", rs -> true,
                Resource.SESSION, sessionId, ownerId).isPresent();
    }

    /** The node of an owner id ({@code <node>@<epoch>}); the owner id itself when it names no epoch. */
    static String nodeOf(String ownerId) {
        if (ownerId == null) return null;
        int at = ownerId.lastIndexOf('@');
        return at < 0 ? ownerId : ownerId.substring(0, at);
    }

    private static Owned map(ResultSet rs) throws SQLException {
        long wake = rs.getLong("wake_requested");
        return new Owned(rs.getString("id"), rs.getString("tenant_id"), rs.getString("owner_id"), rs.getString("state"), wake != 0,
                wake >= WAKE_INTERRUPT);
    }
}
