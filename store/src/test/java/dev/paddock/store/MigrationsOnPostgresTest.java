package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.store.testing.TestPostgres;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Schema migrations on PostgreSQL. Servers starting together on one database wait for each other's migration
 * (Flyway's lock). A server whose
 * wait outlasts the store's idle-in-transaction bound (PostgresDatabase) must still start once the other is done:
 * the bound is for a frozen writer's row locks, not for a start that waits its turn. (Flyway retries its lock with a
 * statement every second, so the waiting session is never idle for the bound.)
 */
class MigrationsOnPostgresTest {
    private static final Duration HOLD = Duration.ofSeconds(12); // longer than the 10 s bound

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aServerWaitingLongerThanTheIdleBoundForAnothersMigrationStillStarts() throws Exception {
        StoreLocation.Postgres db = TestPostgres.emptyDatabase();
        CountDownLatch migrating = new CountDownLatch(1);
        AtomicBoolean held = new AtomicBoolean();
        AtomicReference<Throwable> first = new AtomicReference<>();
        // the first server: the same migrations, held at the first one (inside Flyway's lock) for HOLD
        Thread firstServer = Thread.ofVirtual().start(() -> {
            try {
                Flyway.configure().dataSource(db.jdbcUrl(), db.user(), db.password())
                        .locations(PostgresDialect.INSTANCE.migrationLocation())
                        .callbacks(new HoldAtFirstMigration(migrating, held)).load().migrate();
            } catch (Throwable t) {
                first.set(t);
            }
        });
        assertThat(migrating.await(60, TimeUnit.SECONDS)).as("the first server's migration began").isTrue();

        try (PostgresDatabase second = PostgresDatabase.open(db)) {
            int nodes = second.read("count nodes", c -> {
                try (var s = c.createStatement(); var r = s.executeQuery("SELECT count(*) FROM nodes")) {
                    r.next();
                    return r.getInt(1);
                }
            });
            assertThat(nodes).as("the schema is there and empty").isZero();
            assertThat(held).as("the second server waited out the first one's whole hold").isTrue();
        }
        firstServer.join();
        assertThat(first.get()).isNull();
    }

    @Test
    void aUserWhoMayNotChangeTheSchemaGetsAHintAboutRightsNotAboutBackups() throws Exception {
        StoreLocation.Postgres db = TestPostgres.emptyDatabase();
        String role = "paddock_reader_" + ProcessHandle.current().pid();
        try (var c = java.sql.DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password()); var s = c.createStatement()) {
            s.execute("DROP ROLE IF EXISTS " + role);
            s.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'reader-pw'");
            s.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
        }
        try {
            assertThatThrownBy(() -> PostgresDatabase.open(new StoreLocation.Postgres(db.jdbcUrl(), role, "reader-pw")))
                    .isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.STORE_MIGRATION_FAILED))
                    .hasMessageContaining("permission denied for schema public").hasMessageContaining("may change the schema")
                    .hasMessageNotContaining("backup");
        } finally {
            try (var c = java.sql.DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password()); var s = c.createStatement()) {
                s.execute("DROP OWNED BY " + role);
                s.execute("DROP ROLE " + role);
            }
        }
    }

    private record HoldAtFirstMigration(CountDownLatch migrating, AtomicBoolean held) implements Callback {
        @Override
        public boolean supports(Event event, Context context) {
            return event == Event.BEFORE_EACH_MIGRATE;
        }

        @Override
        public boolean canHandleInTransaction(Event event, Context context) {
            return true;
        }

        @Override
        public void handle(Event event, Context context) {
            if (migrating.getCount() == 0) return;
            migrating.countDown();
            try {
                Thread.sleep(HOLD);
                held.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String getCallbackName() {
            return "hold-at-first-migration";
        }
    }
}
