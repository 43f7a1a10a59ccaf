package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.testing.Carriers;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQLite runs in JNI, which pins a virtual thread's carrier while it runs. Store writes that wait inside SQLite for
 * a lock (held here by another connection to each database) must not stop an unrelated virtual thread from running,
 * however many of them wait at once.
 */
class SqliteCarrierTest {
    @TempDir
    Path dir;

    @Test
    void moreStoreCallsWaitingInsideSqliteThanCarriersLeaveOtherVirtualThreadsRunning() throws Exception {
        int waiting = Carriers.count() + 1;
        List<SqliteDatabase> stores = new ArrayList<>();
        List<Connection> lockers = new ArrayList<>();
        List<Thread> writers = new ArrayList<>();
        try {
            for (int i = 0; i < waiting; i++) {
                Path file = dir.resolve("db-" + i + ".db");
                SqliteDatabase store = SqliteDatabase.open(file);
                stores.add(store);
                store.write("make a table", c -> {
                    try (Statement s = c.createStatement()) {
                        s.execute("CREATE TABLE t (x INTEGER)");
                    }
                    return null;
                });
                Connection locker = DriverManager.getConnection("jdbc:sqlite:" + file);
                lockers.add(locker);
                try (Statement s = locker.createStatement()) {
                    s.execute("BEGIN IMMEDIATE"); // holds the write lock: the store's write waits in SQLite's busy handler
                }
            }
            for (SqliteDatabase store : stores) {
                writers.add(Thread.ofVirtual().start(() -> {
                    try {
                        store.write("wait for the lock", c -> {
                            try (Statement s = c.createStatement()) {
                                s.execute("INSERT INTO t VALUES (1)");
                            }
                            return null;
                        });
                    } catch (RuntimeException ignored) {
                        // the outcome of the waiting writes is not what this test is about
                    }
                }));
            }
            Thread.sleep(300); // let the writers reach SQLite
            assertThat(Carriers.aVirtualThreadRunsWithin(Duration.ofSeconds(5))).as("a virtual thread ran while %d store writes waited inside SQLite", waiting).isTrue();
        } finally {
            for (Connection locker : lockers) {
                try (Statement s = locker.createStatement()) {
                    s.execute("ROLLBACK");
                }
                locker.close();
            }
            for (Thread w : writers) w.join(20_000);
            stores.forEach(SqliteDatabase::close);
        }
    }
}
