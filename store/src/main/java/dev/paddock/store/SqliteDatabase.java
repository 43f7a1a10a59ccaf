package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.OffCarrier;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * SQLite in WAL mode: one write connection behind a fair lock (SQLite has a single writer, so queueing in the
 * JVM is cheaper and more predictable than retrying on SQLITE_BUSY) and a few read connections, which WAL lets
 * run beside the writer on their own snapshots.
 *
 * <p>Durability: {@code synchronous=NORMAL} with WAL appends each commit to the WAL file with write(2) before
 * COMMIT returns; only checkpoints fsync. A killed JVM (SIGKILL) therefore loses nothing that was acknowledged:
 * the data is in the kernel's page cache and reaches the file. Only a power cut or kernel crash could drop the
 * last commits, and even then the database stays consistent. {@code FULL} would fsync every commit for that case.
 *
 * <p>Transactions are opened with explicit BEGIN statements on auto-commit connections, so an idle connection
 * holds no lock (the driver's own transaction handling would re-open one right after each commit).
 */
final class SqliteDatabase implements Database {
    private static final Logger LOG = LoggerFactory.getLogger(SqliteDatabase.class);
    private static final int BUSY_TIMEOUT_MS = 10_000;
    private static final int READERS = 4;

    private final Path file;
    private final Connection writer;
    private final ReentrantLock writeLock = new ReentrantLock(true);
    private final BlockingQueue<Connection> readers;
    private final List<Connection> allReaders;
    private volatile boolean closed;
    private final WriteStop writeStop = new WriteStop();

    private SqliteDatabase(Path file, Connection writer, List<Connection> readers) {
        this.file = file;
        this.writer = writer;
        this.allReaders = List.copyOf(readers);
        this.readers = new ArrayBlockingQueue<>(readers.size(), false, readers);
    }

    /** Opens (creating if needed) the database file and brings its schema up to date. */
    static SqliteDatabase open(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        if (Files.isDirectory(absolute)) {
            throw new PaddockException(ErrorCode.STORE_OPEN_FAILED,
                    "database path " + absolute + " is a directory; give the path of a database file");
        }
        if (absolute.getParent() == null || !Files.isDirectory(absolute.getParent())) {
            throw new PaddockException(ErrorCode.STORE_OPEN_FAILED,
                    "directory of database " + absolute + " does not exist; create the data directory first");
        }
        String url = "jdbc:sqlite:" + absolute;
        List<Connection> opened = new ArrayList<>();
        try {
            // The writer opens first: a file that is not a database, or not writable, fails here with a clear
            // reason before Flyway gets to it.
            Connection writer = config(false).createConnection(url);
            opened.add(writer);
            checkWal(writer, absolute);

            SQLiteDataSource migrationSource = new SQLiteDataSource(config(false));
            migrationSource.setUrl(url);
            Migrations.run(migrationSource, SqliteDialect.INSTANCE, absolute.toString());

            List<Connection> readers = new ArrayList<>();
            for (int i = 0; i < READERS; i++) {
                Connection reader = config(true).createConnection(url);
                opened.add(reader);
                readers.add(reader);
            }
            return new SqliteDatabase(absolute, writer, readers);
        } catch (SQLException e) {
            opened.forEach(SqliteDatabase::closeQuietly);
            throw new PaddockException(ErrorCode.STORE_OPEN_FAILED, "cannot open database " + absolute + " ("
                    + SqliteDialect.INSTANCE.describe(e) + "); check that it is a Paddock database file and writable", e);
        } catch (RuntimeException e) {
            opened.forEach(SqliteDatabase::closeQuietly);
            throw e;
        }
    }

    private static SQLiteConfig config(boolean readOnly) {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        config.setBusyTimeout(BUSY_TIMEOUT_MS);
        config.enforceForeignKeys(true);
        if (readOnly) {
            config.setReadOnly(true);
        }
        return config;
    }

    private static void checkWal(Connection c, Path file) throws SQLException {
        // Reading the mode also reads the file header, so a file that is not a database fails here.
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
            String mode = rs.next() ? rs.getString(1) : "unknown";
            if (!"wal".equalsIgnoreCase(mode)) {
                // Still correct and durable, only readers and the writer now block each other.
                LOG.warn("database {} runs in journal mode {}, not WAL (the file system may not support it)", file, mode);
            }
        }
    }

    @Override
    public Dialect dialect() {
        return SqliteDialect.INSTANCE;
    }

    /**
     * SQLite runs in JNI, which pins a virtual thread's carrier; a write may wait there for the file's lock or sync a
     * checkpoint, so it runs through {@link OffCarrier}.
     */
    @Override
    public <T> T write(String operation, SqlWork<T> work) {
        return OffCarrier.run(() -> writeHere(operation, work));
    }

    private <T> T writeHere(String operation, SqlWork<T> work) {
        writeLock.lock();
        try {
            if (closed) throw StoreErrors.closed();
            writeStop.check();
            T result = inTransaction(writer, "BEGIN IMMEDIATE", operation, work);
            writeStop.check(); // committed, but not acknowledged if the files it went to are no longer the database
            return result;
        } finally {
            writeLock.unlock();
        }
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

    /**
     * On the caller's thread: in WAL mode a read waits for no lock and syncs nothing, so its JNI time is short, and
     * a hand-off to a platform thread would cost every request more than it saves.
     */
    @Override
    public <T> T read(String operation, SqlWork<T> work) {
        if (closed) throw StoreErrors.closed();
        Connection c = borrowReader(operation);
        try {
            if (closed) throw StoreErrors.closed();
            return inTransaction(c, "BEGIN", operation, work);
        } finally {
            readers.add(c);
        }
    }

    private Connection borrowReader(String operation) {
        try {
            while (true) {
                // Polling rather than take(): close() drains the queue, and a waiting reader must then give up.
                Connection c = readers.poll(200, TimeUnit.MILLISECONDS);
                if (c != null) return c;
                if (closed) throw StoreErrors.closed();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "store read " + operation + " was interrupted");
        }
    }

    private <T> T inTransaction(Connection c, String begin, String operation, SqlWork<T> work) {
        try (Statement s = c.createStatement()) {
            s.execute(begin);
            T result;
            try {
                result = work.run(c);
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(s);
                throw e;
            }
            s.execute("COMMIT");
            return result;
        } catch (SQLException e) {
            if (diskFull(e)) throw StoreErrors.full(operation);
            throw StoreErrors.internal(dialect(), operation, e);
        }
    }

    /** SQLITE_FULL, or an I/O error on a file system with no room left (ENOSPC on a WAL append reads as IOERR). */
    private boolean diskFull(SQLException e) {
        if (dialect().isFull(e)) return true;
        if (!dialect().describe(e).startsWith("SQLITE_IOERR")) return false;
        try {
            return Files.getFileStore(file.getParent()).getUsableSpace() < 1 << 20;
        } catch (IOException unknown) {
            return false;
        }
    }

    private static void rollbackQuietly(Statement s) {
        try {
            s.execute("ROLLBACK");
        } catch (SQLException ignored) {
            // SQLite may already have rolled back (e.g. after SQLITE_FULL); the original failure is what matters.
        }
    }

    @Override
    public void close() {
        writeLock.lock();
        try {
            if (closed) return;
            closed = true;
            closeQuietly(writer);
        } finally {
            writeLock.unlock();
        }
        // A reader still in use finishes its statement first: closing waits for each one to come back.
        for (int i = 0; i < allReaders.size(); i++) {
            try {
                closeQuietly(readers.take());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                allReaders.forEach(SqliteDatabase::closeQuietly);
                return;
            }
        }
        LOG.debug("closed database {}", file);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing left to do for a connection that will not be used again
        }
    }
}
