package dev.paddock.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL through a HikariCP pool, shared by any number of Paddock servers. Writes run READ COMMITTED: every
 * update the store makes is a compare-and-set in its WHERE clause (the fence's owner and generation, a resource's
 * revision), which PostgreSQL re-checks on the newest row version, and the few writes that read before they write
 * lock what they read ({@link Dialect#lockRowsSuffix()}), so concurrent writers on several servers get what SQLite's
 * single writer gives one server without its serialisation. A transaction that loses a deadlock (or a serialization
 * conflict) ran no side effect outside the database, so it runs again, a few times, after a short random pause.
 * Reads run READ ONLY on one snapshot (REPEATABLE READ).
 *
 * <p>Durability is PostgreSQL's: a commit returns once its WAL record is flushed (with the default
 * {@code synchronous_commit}), so nothing acknowledged is lost when Paddock or the database is killed.
 */
final class PostgresDatabase implements Database {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresDatabase.class);
    private static final int POOL_SIZE = 16;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration SOCKET_TIMEOUT = Duration.ofMinutes(2);
    /**
     * How long the database lets a session sit inside a transaction with no statement running before it ends the
     * session: a server frozen or cut off mid-transaction (SIGSTOP, a partition) would otherwise hold its row locks
     * for as long as its connection lives, and every other server writing those rows (a survivor marking it lost,
     * taking over its sandboxes) would wait with it. Every transaction here runs its statements back to back.
     */
    private static final Duration IDLE_IN_TRANSACTION = Duration.ofSeconds(10);
    private static final int WRITE_ATTEMPTS = 8;

    private final String display;
    private final HikariDataSource pool;
    private volatile boolean closed;
    private final WriteStop writeStop = new WriteStop();

    private PostgresDatabase(StoreLocation.Postgres location, HikariDataSource pool) {
        this.display = location.display();
        this.pool = pool;
    }

    /** Connects, and brings the schema up to date (Flyway's lock keeps servers starting together from racing). */
    static PostgresDatabase open(StoreLocation.Postgres location) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(location.jdbcUrl());
        if (location.user() != null) config.setUsername(location.user());
        if (location.password() != null) config.setPassword(location.password());
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(2);
        config.setConnectionTimeout(CONNECT_TIMEOUT.toMillis());
        config.setInitializationFailTimeout(CONNECT_TIMEOUT.toMillis());
        config.setAutoCommit(false);
        config.setPoolName("paddock-store");
        config.addDataSourceProperty("ApplicationName", "paddock");
        config.addDataSourceProperty("tcpKeepAlive", "true");
        // a partition that drops packets would otherwise hold a query (and its pool connection) for TCP's keepalive,
        // about two hours; every statement here is short, and one that waits on another's lock waits seconds at most
        config.addDataSourceProperty("socketTimeout", Long.toString(SOCKET_TIMEOUT.toSeconds()));
        config.addDataSourceProperty("options", startupOptions(location.options()));
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (HikariPool.PoolInitializationException e) {
            Throwable cause = e.getCause();
            String why = cause instanceof SQLException s ? PostgresDialect.INSTANCE.describe(s) + ": " + firstLine(s.getMessage())
                    : firstLine(e.getMessage());
            throw new PaddockException(ErrorCode.STORE_OPEN_FAILED, "cannot connect to PostgreSQL at " + location.display()
                    + " (" + why + "); check store_url, that the server runs and that the user may log in", e);
        }
        try {
            Migrations.run(pool, PostgresDialect.INSTANCE, location.display());
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        return new PostgresDatabase(location, pool);
    }

    /** Ours first, then the operator's from store_url: where both set the same name, the later (the operator's) wins. */
    static String startupOptions(String operators) {
        String ours = "-c idle_in_transaction_session_timeout=" + IDLE_IN_TRANSACTION.toMillis();
        return operators == null || operators.isBlank() ? ours : ours + " " + operators.strip();
    }

    @Override
    public Dialect dialect() {
        return PostgresDialect.INSTANCE;
    }

    @Override
    public <T> T write(String operation, SqlWork<T> work) {
        checkOpen();
        writeStop.check();
        for (int attempt = 1; ; attempt++) {
            try {
                T result = inTransaction(operation, false, work);
                writeStop.check();
                return result;
            } catch (Retry retry) {
                if (attempt >= WRITE_ATTEMPTS) {
                    throw new PaddockException(ErrorCode.STORE_UNAVAILABLE, "store operation " + operation + " lost "
                            + attempt + " conflicts with concurrent writers in a row; retry");
                }
                pause(attempt);
            }
        }
    }

    @Override
    public <T> T read(String operation, SqlWork<T> work) {
        checkOpen();
        try {
            return inTransaction(operation, true, work);
        } catch (Retry retry) {
            // a read-only snapshot cannot lose a serialization conflict; if it ever does, say so plainly
            throw new PaddockException(ErrorCode.STORE_UNAVAILABLE, "store read " + operation + " conflicted with a writer; retry");
        }
    }

    private <T> T inTransaction(String operation, boolean readOnly, SqlWork<T> work) {
        try (Connection c = pool.getConnection()) {
            c.setReadOnly(readOnly);
            c.setTransactionIsolation(readOnly ? Connection.TRANSACTION_REPEATABLE_READ : Connection.TRANSACTION_READ_COMMITTED);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            }
        } catch (SQLException e) {
            if (PostgresDialect.INSTANCE.isRetryable(e)) throw new Retry();
            if (PostgresDialect.INSTANCE.isUnreachable(e)) {
                throw new PaddockException(ErrorCode.STORE_UNAVAILABLE, "the database at " + display + " did not answer "
                        + operation + " (" + dialect().describe(e) + "); retry", e);
            }
            throw StoreErrors.internal(dialect(), operation, e);
        }
    }

    /** A transaction lost a serialization conflict and may run again. */
    private static final class Retry extends RuntimeException {
        Retry() {
            super(null, null, false, false);
        }
    }

    private static void pause(int attempt) {
        long maxMillis = Math.min(200, 5L << attempt);
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, maxMillis + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "store write was interrupted");
        }
    }

    private void checkOpen() {
        if (closed) throw StoreErrors.closed();
    }

    @Override
    public void checkWritable() {
        writeStop.check();
    }

    @Override
    public void guardWrites(Supplier<String> problem) {
        writeStop.guard(problem);
    }

    @Override
    public void stopWrites(String reason) {
        writeStop.stop(reason);
    }

    @Override
    public void pauseWrites(String reason) {
        writeStop.pause(reason);
    }

    @Override
    public void resumeWrites() {
        writeStop.resume();
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection may be gone; the pool drops it, and the original failure is what matters
        }
    }

    private static String firstLine(String message) {
        if (message == null) return "no message";
        int nl = message.indexOf('\n');
        return (nl < 0 ? message : message.substring(0, nl)).strip();
    }

    @Override
    public void close() {
        closed = true;
        pool.close();
        LOG.debug("closed database {}", display);
    }
}
