package dev.paddock.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

final class SqliteDialect implements Dialect {
    static final SqliteDialect INSTANCE = new SqliteDialect();

    private SqliteDialect() {}

    @Override
    public String name() { return "sqlite"; }

    @Override
    public String migrationLocation() { return "classpath:db/migration/sqlite"; }

    @Override
    public String lockRowsSuffix() { return ""; }

    @Override
    public void orderAppends(Connection c, String stream) {
        // one writer at a time: appends already commit in seq order
    }

    @Override
    public boolean isUniqueViolation(SQLException e) {
        return e instanceof SQLiteException s
                && (s.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY
                || s.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE);
    }

    @Override
    public boolean isFull(SQLException e) {
        if (!(e instanceof SQLiteException s)) return false;
        return s.getResultCode() == SQLiteErrorCode.SQLITE_FULL;
    }

    @Override
    public String describe(SQLException e) {
        // The result code name (SQLITE_BUSY, SQLITE_IOERR_...) says what went wrong without quoting any data.
        return e instanceof SQLiteException s ? s.getResultCode().name() : "SQLState " + e.getSQLState();
    }
}
