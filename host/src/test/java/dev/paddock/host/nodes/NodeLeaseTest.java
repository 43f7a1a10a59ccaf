package dev.paddock.host.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.store.JdbcStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node believes it holds its lease only until the lease it last renewed runs out, by its own clock (real SQLite). */
class NodeLeaseTest {
    @TempDir Path dir;

    /** A clock the test moves by hand. */
    static final class HandClock extends Clock {
        volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(ZoneId zone) { return this; }
        @Override public Instant instant() { return now; }
    }

    @Test
    void aNodeThatMissedItsRenewalsNoLongerHoldsItsLease() {
        HandClock clock = new HandClock();
        try (JdbcStore store = JdbcStore.openSqlite(dir.resolve("paddock.db"));
             NodeMembership node = NodeMembership.join(store.nodes(), new NodeSettings("node_a", "http://127.0.0.1:9", Map.of(),
                     Duration.ofSeconds(30)), List.of("subprocess"), clock)) {
            assertThat(node.holdsLease()).isTrue();
            clock.now = clock.now.plusSeconds(29);
            assertThat(node.holdsLease()).isTrue();
            clock.now = clock.now.plusSeconds(1);
            assertThat(node.holdsLease()).as("the lease ran out unrenewed").isFalse();
        }
    }
}
