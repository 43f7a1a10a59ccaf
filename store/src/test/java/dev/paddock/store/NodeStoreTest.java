package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.FenceLostException;
import dev.paddock.core.nodes.NodeCapacity;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.NodeState;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.SandboxRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

@ParameterizedClass
@EnumSource(StoreBackend.class)
class NodeStoreTest {
    @Parameter StoreBackend backend;
    @TempDir Path dir;
    JdbcStore store;
    final Instant t0 = TestData.now();

    @BeforeEach
    void open() {
        store = backend.open(dir.resolve("paddock.db"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    NodeRecord proposal(String id, String url, Instant leaseUntil) {
        return new NodeRecord(id, 0, url, List.of("bwrap"), Map.of("zone", "a"), new NodeCapacity(1 << 30, 1000, 0),
                NodeState.ACTIVE, t0, t0, leaseUntil, "/mnt/shared/checkpoints-" + url.substring(url.length() - 1));
    }

    @Test
    void eachJoinOfANodeIsANewEpochWithTheNewAddress() {
        NodeRecord first = store.nodes().join(proposal("node_a", "http://127.0.0.1:1", t0.plusSeconds(10)));
        NodeRecord second = store.nodes().join(proposal("node_a", "http://127.0.0.1:2", t0.plusSeconds(20)));
        assertThat(first.epoch()).isEqualTo(1);
        assertThat(second.epoch()).isEqualTo(2);
        NodeRecord stored = store.nodes().find("node_a").orElseThrow();
        assertThat(stored.url()).isEqualTo("http://127.0.0.1:2");
        assertThat(stored.labels()).containsEntry("zone", "a");
        assertThat(stored.drivers()).containsExactly("bwrap");
        assertThat(stored.checkpointDir()).as("as the latest join says").isEqualTo("/mnt/shared/checkpoints-2");
        assertThat(stored.ownerId()).isEqualTo("node_a@2");
        // the first process's epoch can no longer renew the lease
        assertThat(store.nodes().heartbeat("node_a", 1, NodeCapacity.UNKNOWN, t0, t0.plusSeconds(30))).isFalse();
        assertThat(store.nodes().heartbeat("node_a", 2, new NodeCapacity(5, 6, 7), t0, t0.plusSeconds(30))).isTrue();
        assertThat(store.nodes().find("node_a").orElseThrow().capacity()).isEqualTo(new NodeCapacity(5, 6, 7));
    }

    @Test
    void onlyAnExpiredLeaseIsMarkedLostAndOnlyOnce() throws Exception {
        store.nodes().join(proposal("node_b", "http://127.0.0.1:3", t0.plusSeconds(5)));
        assertThat(store.nodes().markLost("node_b", 1, t0.plusSeconds(4))).as("lease still running").isFalse();

        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Boolean>> survivors = new ArrayList<>();
            for (int i = 0; i < 4; i++) survivors.add(() -> store.nodes().markLost("node_b", 1, t0.plusSeconds(6)));
            int winners = 0;
            for (Future<Boolean> f : pool.invokeAll(survivors)) if (f.get()) winners++;
            assertThat(winners).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.nodes().find("node_b").orElseThrow().state()).isEqualTo(NodeState.LOST);
        assertThat(store.nodes().heartbeat("node_b", 1, NodeCapacity.UNKNOWN, t0, t0.plusSeconds(60)))
                .as("a lost epoch cannot renew its lease").isFalse();
        assertThat(store.nodes().setState("node_b", NodeState.DRAINING)).isFalse();

        NodeRecord back = store.nodes().join(proposal("node_b", "http://127.0.0.1:3", t0.plusSeconds(60)));
        assertThat(back.epoch()).isEqualTo(2);
        assertThat(back.state()).isEqualTo(NodeState.ACTIVE);
    }

    @Test
    void aDrainingNodeStaysDrainingWhenItRestarts() {
        store.nodes().join(proposal("node_c", "http://127.0.0.1:4", t0.plusSeconds(5)));
        assertThat(store.nodes().setState("node_c", NodeState.DRAINING)).isTrue();
        assertThat(store.nodes().join(proposal("node_c", "http://127.0.0.1:4", t0.plusSeconds(5))).state()).isEqualTo(NodeState.DRAINING);
        assertThat(store.nodes().setState("node_missing", NodeState.DRAINING)).isFalse();
    }

    @Test
    void theFirstClusterSecretStoredWins() {
        assertThat(store.nodes().clusterSecret("first-secret")).isEqualTo("first-secret");
        assertThat(store.nodes().clusterSecret("second-secret")).isEqualTo("first-secret");
    }

    @Test
    void aSandboxIsListedOnTheNodeOfItsOwnerAndMovesWithATakeOver() {
        SandboxRecord base = TestData.sandbox("tenant-1");
        SandboxRecord onA = new SandboxRecord(base.id(), base.tenantId(), base.driver(), SandboxState.RUNNING, base.spec(),
                new Fence(Fence.owner("node_a", 1), 1), null, null, null, null, base.createdAt(), base.updatedAt(), null, null);
        store.sandboxes().insert(onA);
        assertThat(store.sandboxes().listActiveOn("node_a")).extracting(SandboxRecord::id).containsExactly(onA.id());
        assertThat(store.sandboxes().listActiveOn("node_b")).isEmpty();

        Fence taken = store.sandboxes().takeOver(onA.id(), onA.fence(), Fence.owner("node_b", 4));
        assertThat(taken.nodeId()).isEqualTo("node_b");
        assertThat(store.sandboxes().listActiveOn("node_a")).isEmpty();
        assertThat(store.sandboxes().listActiveOn("node_b")).extracting(SandboxRecord::id).containsExactly(onA.id());
        // the old owner is fenced out
        assertThatThrownBy(() -> store.sandboxes().transition(onA.id(), onA.fence(), SandboxState.FAILED, "x"))
                .isInstanceOf(FenceLostException.class);
        store.sandboxes().transition(onA.id(), taken, SandboxState.FAILED, "node lost");
        assertThat(store.sandboxes().listActiveOn("node_b")).isEmpty();
    }

    @Test
    void leaseExpiryIsComparedWithTheGivenTime() {
        NodeRecord n = store.nodes().join(proposal("node_d", "http://127.0.0.1:5", t0.plus(Duration.ofSeconds(3))));
        assertThat(n.leaseExpired(t0.plusSeconds(2))).isFalse();
        assertThat(n.leaseExpired(t0.plusSeconds(3))).isTrue();
        assertThat(n.accepts("bwrap", Map.of("zone", "a"), t0)).isTrue();
        assertThat(n.accepts("bwrap", Map.of("zone", "b"), t0)).isFalse();
        assertThat(n.accepts("docker", Map.of(), t0)).isFalse();
    }
}
