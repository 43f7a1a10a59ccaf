package dev.paddock.store;

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

    /** True when the statement failed on a primary-key or unique constraint. */
    boolean isUniqueViolation(SQLException e);

    /** A short description of the failure that carries no SQL values (they could hold secrets). */
    String describe(SQLException e);

    /** The write failed because the disk (or the database's size limit) is full. */
    boolean isFull(SQLException e);
}
