package dev.paddock.store;

/**
 * Connections and transactions for one database. Every call runs its work in one transaction and turns
 * {@link java.sql.SQLException}s into {@link dev.paddock.core.PaddockException}s; a
 * {@link dev.paddock.core.PaddockException} thrown by the work rolls the transaction back and passes through.
 */
interface Database extends AutoCloseable {
    Dialect dialect();

    /** Runs work that writes. {@code operation} names it in error messages (never SQL or values). */
    <T> T write(String operation, SqlWork<T> work);

    /** Runs work that only reads, on a consistent snapshot. */
    <T> T read(String operation, SqlWork<T> work);

    @Override
    void close();
}
