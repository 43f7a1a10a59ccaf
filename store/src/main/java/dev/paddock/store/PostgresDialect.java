package dev.paddock.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

final class PostgresDialect implements Dialect {
    static final PostgresDialect INSTANCE = new PostgresDialect();
    /** SQLSTATE classes and codes (PostgreSQL Appendix A). */
    private static final String UNIQUE_VIOLATION = "23505";
    private static final String DISK_FULL = "53100";
    private static final String SERIALIZATION_FAILURE = "40001";
    private static final String DEADLOCK_DETECTED = "40P01";
    private static final String CONNECTION_CLASS = "08";
    private static final String SHUTDOWN_CLASS = "57P";

    private PostgresDialect() {}

    @Override
    public String name() { return "postgresql"; }

    @Override
    public String migrationLocation() { return "classpath:db/migration/postgresql"; }

    @Override
    public String lockRowsSuffix() { return " FOR UPDATE"; }

    @Override
    public void orderAppends(Connection c, String stream) throws SQLException {
        // Identity values are drawn at insert, not at commit: without this lock a transaction holding seq 5 could
        // commit after one holding seq 6 had been read, and a reader paging past 6 would never see 5.
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
            ps.setString(1, stream);
            ps.execute();
        }
    }

    @Override
    public boolean isUniqueViolation(SQLException e) {
        return UNIQUE_VIOLATION.equals(e.getSQLState());
    }

    @Override
    public boolean isFull(SQLException e) {
        return DISK_FULL.equals(e.getSQLState());
    }

    @Override
    public String describe(SQLException e) {
        // The SQLSTATE says what went wrong; the server's message may quote values, so it is left out.
        return "SQLState " + e.getSQLState();
    }

    /** Another transaction won a conflict: the whole transaction may simply run again. */
    boolean isRetryable(SQLException e) {
        return SERIALIZATION_FAILURE.equals(e.getSQLState()) || DEADLOCK_DETECTED.equals(e.getSQLState());
    }

    /** The database is out of reach (connection lost or refused, server shutting down). */
    boolean isUnreachable(SQLException e) {
        String state = e.getSQLState();
        return state == null || state.startsWith(CONNECTION_CLASS) || state.startsWith(SHUTDOWN_CLASS);
    }
}
