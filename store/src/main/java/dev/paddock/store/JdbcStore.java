package dev.paddock.store;

import dev.paddock.core.agents.AgentsStore;
import dev.paddock.core.egress.EgressAuditLog;
import dev.paddock.core.egress.SecretRepository;
import dev.paddock.core.nodes.NodeStore;
import dev.paddock.core.store.ApiKeyStore;
import dev.paddock.core.store.CheckpointStore;
import dev.paddock.core.store.EventStore;
import dev.paddock.core.store.SandboxStore;
import dev.paddock.core.store.Store;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Clock;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The {@link Store} on a relational database through JDBC: SQLite, the embedded default, or PostgreSQL, for several
 * servers sharing one store. The statements are standard SQL and the few differences live in a {@link Dialect}.
 * Safe to share across any number of (virtual) threads; close it once at shutdown.
 */
public final class JdbcStore implements Store {
    private final Database db;
    private final SandboxStore sandboxes;
    private final EventStore events;
    private final CheckpointStore checkpoints;
    private final ApiKeyStore apiKeys;
    private final AgentsStore agents;
    private final JdbcEgressAuditLog egressAudit;
    private final JdbcSecretRepository secrets;
    private final NodeStore nodes;

    private JdbcStore(Database db, Clock clock) {
        this.db = db;
        this.sandboxes = new JdbcSandboxStore(db, clock);
        this.events = new JdbcEventStore(db, clock);
        this.checkpoints = new JdbcCheckpointStore(db);
        this.apiKeys = new JdbcApiKeyStore(db, clock);
        this.agents = new JdbcAgentsStore(db, clock);
        this.egressAudit = new JdbcEgressAuditLog(db);
        this.secrets = new JdbcSecretRepository(db);
        this.nodes = new JdbcNodeStore(db);
    }

    /**
     * Opens the SQLite database at {@code dbFile}, creating it if missing (its directory must exist), and migrates
     * its schema. Throws {@link dev.paddock.core.PaddockException} with code {@code store_open_failed},
     * {@code store_migration_failed} or {@code store_schema_too_new} when the file cannot be used.
     */
    public static JdbcStore openSqlite(Path dbFile) {
        return openSqlite(dbFile, Clock.systemUTC());
    }

    /** As {@link #openSqlite(Path)}, with the clock that stamps event, update and revocation times. */
    public static JdbcStore openSqlite(Path dbFile, Clock clock) {
        Objects.requireNonNull(dbFile, "dbFile");
        Objects.requireNonNull(clock, "clock");
        return new JdbcStore(SqliteDatabase.open(dbFile), clock);
    }

    /** Opens the store {@code location} names: a SQLite file or a PostgreSQL database (see {@link StoreLocation}). */
    public static JdbcStore open(StoreLocation location, Clock clock) {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(clock, "clock");
        return switch (location) {
            case StoreLocation.Sqlite sqlite -> openSqlite(sqlite.file(), clock);
            case StoreLocation.Postgres postgres -> new JdbcStore(PostgresDatabase.open(postgres), clock);
        };
    }

    /** The database this store runs on: {@code sqlite} or {@code postgresql}. */
    public String dialect() {
        return db.dialect().name();
    }

    @Override
    public SandboxStore sandboxes() { return sandboxes; }

    @Override
    public EventStore events() { return events; }

    @Override
    public CheckpointStore checkpoints() { return checkpoints; }

    @Override
    public ApiKeyStore apiKeys() { return apiKeys; }

    /** Agents, environments, sessions, their events and the self-hosted work queue. */
    public AgentsStore agents() { return agents; }

    /** Egress audit records, kept after their sandbox ended. */
    public EgressAuditLog egressAudit() { return egressAudit; }

    /** The vault's encrypted secrets (ciphertext only). */
    public SecretRepository secrets() { return secrets; }

    /** The cluster's nodes (servers sharing a PostgreSQL store); empty on SQLite, whose one server never joins. */
    public NodeStore nodes() { return nodes; }

    /** True when several servers may share this store as nodes (PostgreSQL). */
    public boolean sharable() {
        return db instanceof PostgresDatabase;
    }

    /** How long the readiness query may run on the database before it counts as not answering. */
    private static final int READY_QUERY_SECONDS = 2;

    @Override
    public void checkReady() {
        db.checkWritable();
        db.read("readiness check", c -> {
            boolean bounded = bound(c, READY_QUERY_SECONDS * 1000 + 1000);
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(READY_QUERY_SECONDS);
                try (ResultSet r = s.executeQuery("SELECT 1")) {
                    r.next();
                }
            }
            if (bounded) c.setNetworkTimeout(Runnable::run, 0);
            return null;
        });
    }

    /**
     * Bounds every read of this connection (a database cut off without a reset would otherwise hold the check for as
     * long as TCP keeps the connection); a connection that times out is closed by the driver and leaves the pool.
     */
    private static boolean bound(Connection c, int millis) throws SQLException {
        try {
            c.setNetworkTimeout(Runnable::run, millis);
            return true;
        } catch (SQLFeatureNotSupportedException e) {
            return false; // SQLite: a local file, no network to wait on
        }
    }

    /** Refuses every later write (503 {@code store_writes_stopped}); reads keep working. */
    public void stopWrites(String reason) {
        db.stopWrites(reason);
    }

    /**
     * Refuses writes (503 {@code store_writes_stopped}) until {@link #resumeWrites}: for a node that found its lease
     * lost and has not yet rejoined its cluster as a new epoch. Reads keep working.
     */
    public void pauseWrites(String reason) {
        db.pauseWrites(reason);
    }

    public void resumeWrites() {
        db.resumeWrites();
    }

    /** Asks {@code problem} around every write; a non-null answer stops writes for good (see {@link #stopWrites}). */
    public void guardWrites(Supplier<String> problem) {
        db.guardWrites(problem);
    }

    @Override
    public void close() {
        db.close();
    }
}
