package dev.paddock.store;

import java.util.function.Supplier;

/**
 * Connections and transactions for one database. Every call runs its work in one transaction and turns
 * {@link java.sql.SQLException}s into {@link dev.paddock.core.PaddockException}s; a
 * {@link dev.paddock.core.PaddockException} thrown by the work rolls the transaction back and passes through.
 */
interface Database extends AutoCloseable {
    Dialect dialect();

    /** Runs work that writes. {@code operation} names it in error messages (never SQL or values). */
    <T> T write(String operation, SqlWork<T> work);

    /**
     * Refuses every later write with {@code reason} (503): for a server that must stop mutating, e.g. because its
     * database files were deleted or replaced under it, or it lost the data directory's lock.
     */
    void stopWrites(String reason);

    /** Refuses writes with {@code reason} (503) until {@link #resumeWrites}; a stop by {@link #stopWrites} stays. */
    void pauseWrites(String reason);

    void resumeWrites();

    /**
     * Asks {@code problem} before every write and again after its commit, before it is acknowledged: a non-null
     * answer stops writes as {@link #stopWrites} does, and that write is not acknowledged.
     */
    void guardWrites(Supplier<String> problem);

    /** Throws {@code store_writes_stopped} while writes are stopped or paused, as the next write would. */
    void checkWritable();

    /** Runs work that only reads, on a consistent snapshot. */
    <T> T read(String operation, SqlWork<T> work);

    @Override
    void close();
}
