package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.store.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Leases on real SQLite with a clock the test moves: a lapsed lease is reclaimed and its old holder fenced out. */
class WorkQueueLeaseTest {
    static final class MovableClock extends Clock {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(java.time.ZoneId zone) { return this; }
        @Override public Instant instant() { return now; }
    }

    Path dir;
    JdbcStore store;
    MovableClock clock = new MovableClock();
    WorkQueue queue;

    @BeforeEach
    void open() throws Exception {
        dir = Files.createTempDirectory("paddock-work-test");
        store = JdbcStore.openSqlite(dir.resolve("p.db"), clock);
        queue = new WorkQueue(store.agents().work(), AgentsConfig.defaults().withLeaseTtl(Duration.ofSeconds(30)), clock);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aLapsedLeaseIsReclaimedByAnotherWorkerAndTheOldHoldersHeartbeatIsRefused() {
        queue.enqueue("t", "env_a", "sesn_1");
        queue.enqueue("t", "env_a", "sesn_1");
        assertThat(queue.stats("env_a").get("depth")).as("one live item per session").isEqualTo(1L);

        String work = (String) queue.poll("t", "env_a", "old", 0, null).orElseThrow().get("id");
        queue.ack("env_a", work, "old");
        String token = queue.heartbeat("env_a", work, WorkQueue.NO_HEARTBEAT, null, "old").response().lastHeartbeat();
        assertThat(queue.poll("t", "env_a", "new", 0, null)).as("a live lease is not claimable").isEmpty();

        clock.now = clock.now.plusSeconds(31);
        Map<String, Object> reclaimed = queue.poll("t", "env_a", "new", 0, null).orElseThrow();
        assertThat(reclaimed.get("id")).isEqualTo(work);
        assertThat(reclaimed.get("state")).isEqualTo("starting");

        WorkQueue.Heartbeat stale = queue.heartbeat("env_a", work, token, null, null);
        assertThat(stale.response()).isNull();
        assertThat(stale.failedLease().state()).isEqualTo("starting");
        assertThat(stale.failedLease().extended()).isFalse();
        assertThatThrownBy(() -> queue.ack("env_a", work, "old"))
                .isInstanceOf(PaddockException.class).extracting("code").isEqualTo("work_owned_by_another_worker");
        assertThat(queue.heartbeat("env_a", work, WorkQueue.NO_HEARTBEAT, null, "new").response().state()).isEqualTo("active");
    }

    @Test
    void badPollParametersAreRefused() {
        assertThatThrownBy(() -> queue.poll("t", "env_a", "w", 1000, null)).isInstanceOf(PaddockException.class).hasMessageContaining("block_ms");
        assertThatThrownBy(() -> queue.poll("t", "env_a", "w", 0, -1L)).isInstanceOf(PaddockException.class).hasMessageContaining("reclaim_older_than_ms");
    }
}
