package dev.paddock.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What differs between the databases the store runs on. The statements themselves are shared standard SQL;
 * only these few points vary.
 */
interface Dialect {
    /** Name used in messages and logs, e.g. {@code sqlite}. */
    String name();

    /** Flyway location of this database's migrations. */
    String migrationLocation();

    /**
     * Suffix that row-locks what a SELECT reads until the transaction ends ({@code FOR UPDATE} on PostgreSQL).
     * Empty where the database already serialises writers (SQLite's single writer).
     */
    String lockRowsSuffix();

    /**
     * Makes appends to one ordered stream (a sandbox's events, a session's events) commit in the order of their
     * {@code seq}, so a reader that pages by seq never passes a row that commits later with a smaller one. Holds
     * until the transaction ends. Nothing to do where writers are serialised anyway.
     */
    void orderAppends(Connection c, String stream) throws SQLException;

    /** True when the statement failed on a primary-key or unique constraint. */
    boolean isUniqueViolation(SQLException e);

    /** A short description of the failure that carries no SQL values (they could hold secrets). */
    String describe(SQLException e);

    /** The write failed because the disk (or the database's size limit) is full. */
    boolean isFull(SQLException e);
}
