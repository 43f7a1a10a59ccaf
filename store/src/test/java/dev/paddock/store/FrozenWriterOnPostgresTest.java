package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.PaddockException;
import dev.paddock.store.testing.TestPostgres;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server frozen in the middle of a transaction (SIGSTOP, a network partition) keeps its connection open, and the
 * database would keep its row locks for as long: a survivor writing the same rows (marking that node lost, taking
 * over its sandboxes) would wait with it. The database ends such a session instead, so the other writer goes on,
 * and the frozen one's transaction, when it wakes, fails rather than committing late.
 */
class FrozenWriterOnPostgresTest {
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS) // without the fix the survivor waits for the socket timeout (2 min)
    void aWriterFrozenInsideItsTransactionLosesItsLocksAndTheOtherWriterGoesOn() throws Exception {
        var db = TestPostgres.freshDatabase();
        try (PostgresDatabase frozen = PostgresDatabase.open(db); PostgresDatabase survivor = PostgresDatabase.open(db)) {
            survivor.write("make the probe", c -> {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE frozen_probe (id INT PRIMARY KEY, holder TEXT NOT NULL)");
                    s.execute("INSERT INTO frozen_probe VALUES (1, 'nobody')");
                }
                return null;
            });
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch wake = new CountDownLatch(1);
            AtomicReference<Throwable> frozenOutcome = new AtomicReference<>();
            Thread frozenServer = Thread.ofVirtual().start(() -> {
                try {
                    frozen.write("hold the row", c -> {
                        try (Statement s = c.createStatement()) {
                            s.executeUpdate("UPDATE frozen_probe SET holder = 'frozen' WHERE id = 1");
                        }
                        locked.countDown();
                        awaitQuietly(wake); // frozen: the transaction stays open, no statement runs
                        return null;
                    });
                } catch (Throwable t) {
                    frozenOutcome.set(t);
                }
            });
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();

            survivor.write("take the row over", c -> {
                try (Statement s = c.createStatement()) {
                    return s.executeUpdate("UPDATE frozen_probe SET holder = 'survivor' WHERE id = 1");
                }
            });

            wake.countDown();
            frozenServer.join();
            assertThat(frozenOutcome.get()).as("the frozen writer's late commit").isInstanceOf(PaddockException.class);
            String holder = survivor.read("read the row", c -> holder(c.createStatement()));
            assertThat(holder).isEqualTo("survivor");
        }
    }

    private static String holder(Statement s) throws SQLException {
        try (s; ResultSet r = s.executeQuery("SELECT holder FROM frozen_probe WHERE id = 1")) {
            r.next();
            return r.getString(1);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
