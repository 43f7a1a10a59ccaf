package dev.paddock.store.testing;

import dev.paddock.core.testing.Prerequisites;
import dev.paddock.store.JdbcStore;
import dev.paddock.store.StoreLocation;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fresh PostgreSQL databases for tests, in the server {@code PADDOCK_TEST_POSTGRES_URL} names (scripts/test starts a
 * throwaway one and sets it). Without it a test that needs one is skipped, and fails under CI. Each database is a copy
 * of one migrated once per test JVM: CREATE DATABASE … TEMPLATE copies files, much faster than migrating every time.
 * Shared by every module's tests (paddock-store's test-jar).
 */
public final class TestPostgres {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static StoreLocation.Postgres template;

    private TestPostgres() {}

    /** A new, migrated, empty database of its own. */
    public static synchronized StoreLocation.Postgres freshDatabase() {
        StoreLocation.Postgres server = server();
        String prefix = "paddock_test_" + ProcessHandle.current().pid() + "_";
        if (template == null) {
            template = create(server, prefix + "template", null);
            JdbcStore.open(template, Clock.systemUTC()).close(); // migrates it
        }
        return create(server, prefix + COUNTER.incrementAndGet(), template);
    }

    /** A new database with no schema at all (nothing migrated). */
    public static synchronized StoreLocation.Postgres emptyDatabase() {
        return create(server(), "paddock_test_" + ProcessHandle.current().pid() + "_empty_" + COUNTER.incrementAndGet(), null);
    }

    private static StoreLocation.Postgres server() {
        String url = System.getenv("PADDOCK_TEST_POSTGRES_URL");
        Prerequisites.require(url != null && !url.isBlank(),
                "PADDOCK_TEST_POSTGRES_URL is not set (scripts/test starts a throwaway PostgreSQL and sets it)");
        return (StoreLocation.Postgres) StoreLocation.parse(url, null);
    }

    /** The database as a {@code store_url} setting (a JDBC URL that carries its user and password). */
    public static String storeUrl(StoreLocation.Postgres db) {
        return db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "user=" + encode(db.user()) + "&password=" + encode(db.password());
    }

    private static String encode(String s) {
        return URLEncoder.encode(s == null ? "" : s, StandardCharsets.UTF_8);
    }

    private static StoreLocation.Postgres create(StoreLocation.Postgres server, String name, StoreLocation.Postgres from) {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name + (from == null ? "" : " TEMPLATE " + databaseName(from)));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot make test database " + name + " (SQLState " + e.getSQLState() + ")", e);
        }
        String jdbc = server.jdbcUrl().replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name);
        return new StoreLocation.Postgres(jdbc, server.user(), server.password());
    }

    private static String databaseName(StoreLocation.Postgres db) {
        return db.jdbcUrl().replaceFirst("^jdbc:postgresql://[^/]+/([^?]*).*$", "$1");
    }
}
