package dev.paddock.host.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.access.Principal;
import dev.paddock.core.FenceLostException;
import dev.paddock.core.nodes.NodeCapacity;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.NodeState;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.host.HostConfig;
import dev.paddock.host.HostOwner;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import dev.paddock.store.JdbcStore;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
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

/**
 * Hosts of several nodes on one store (real SQLite, subprocess sandboxes): each looks after its own node's sandboxes
 * only, a restarted node takes its own back under a new epoch, and of several survivors exactly one fails a lost
 * node's sandboxes, with the reason, fencing the lost node out.
 */
class NodesTest {
    static final Principal ALICE = new Principal("tenant-alice", "key_alice", false);
    @TempDir Path dir;
    JdbcStore store;
    final List<AutoCloseable> hosts = new ArrayList<>();

    @BeforeEach
    void open() {
        store = JdbcStore.openSqlite(dir.resolve("paddock.db"));
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable h : hosts) h.close();
        store.close();
    }

    RuntimeHost host(String nodeId, long epoch) throws Exception {
        return host(nodeId, epoch, null);
    }

    /** A host whose checkpoints go to {@code checkpoints} (null: its own data directory's). */
    RuntimeHost host(String nodeId, long epoch, Path checkpoints) throws Exception {
        Path data = Files.createDirectories(dir.resolve(nodeId));
        RuntimeHost host = new RuntimeHost(HostConfig.defaults(data).withDefaultDriver("subprocess").withSweepInterval(Duration.ofMillis(100))
                        .withCheckpointDir(checkpoints),
                store, List.of(new SubprocessDriver(data.resolve("subprocess"))), null, Clock.systemUTC(), HostOwner.node(nodeId, epoch));
        host.start();
        hosts.add(host);
        return host;
    }

    NodeRecord join(String id, Instant leaseUntil) {
        return join(id, leaseUntil, null);
    }

    NodeRecord join(String id, Instant leaseUntil, Path checkpoints) {
        return join(id, leaseUntil, checkpoints, Map.of());
    }

    NodeRecord join(String id, Instant leaseUntil, Path checkpoints, Map<String, String> labels) {
        Instant now = Instant.now();
        return store.nodes().join(new NodeRecord(id, 0, "http://127.0.0.1:9", List.of("subprocess"), labels,
                NodeCapacity.UNKNOWN, NodeState.ACTIVE, now, now, leaseUntil, checkpoints == null ? null : checkpoints.toString()));
    }

    @Test
    void aRelocationGoesOnlyToANodeWithTheLabelsTheCreateAskedForAndSaysSoWhenNoneHasThem() throws Exception {
        Path shared = dir.resolve("shared-checkpoints").toAbsolutePath();
        join("node_lost", Instant.now().minusSeconds(1), shared, Map.of("zone", "b"));
        RuntimeHost lost = host("node_lost", 1, shared);
        SandboxRecord inB = lost.create(ALICE, SandboxRequest.defaults());
        lost.recordPlacement(ALICE, inB.id(), Map.of("zone", "b"));
        lost.checkpoint(ALICE, inB.id());
        SandboxRecord onGpu = lost.create(ALICE, SandboxRequest.defaults());
        lost.recordPlacement(ALICE, onGpu.id(), Map.of("gpu", "yes"));
        lost.checkpoint(ALICE, onGpu.id());
        // node_a shares the directory and has more room, but not the label; node_b has it
        store.nodes().join(new NodeRecord("node_a", 0, "http://127.0.0.1:9", List.of("subprocess"), Map.of("zone", "a"),
                new NodeCapacity(64L << 30, 1_000_000, 0), NodeState.ACTIVE, Instant.now(), Instant.now(), Instant.now().plusSeconds(60), shared.toString()));
        join("node_b", Instant.now().plusSeconds(60), shared, Map.of("zone", "b"));

        assertThat(new LostNodes(store.nodes(), store, "node_a", "node_a@1", Clock.systemUTC()).sweep()).containsExactly("node_lost");
        SandboxRecord moved = store.sandboxes().find(inB.id()).orElseThrow();
        assertThat(moved.stateReason()).contains("goes on as sbx_").contains("on node node_b");
        String next = moved.stateReason().replaceAll(".*goes on as (sbx_[A-Za-z0-9]+).*", "$1");
        assertThat(store.sandboxes().find(next).orElseThrow().fence().ownerId()).isEqualTo("node_b@1");
        assertThat(store.sandboxes().nodeLabels(next)).as("the successor keeps them").containsExactlyEntriesOf(Map.of("zone", "b"));
        SandboxRecord stuck = store.sandboxes().find(onGpu.id()).orElseThrow();
        assertThat(stuck.state()).isEqualTo(SandboxState.FAILED);
        assertThat(stuck.stateReason()).doesNotContain("goes on as").contains("carries the labels its create asked for {gpu=yes}")
                .contains("placement.node_labels");
    }

    @Test
    void aLostNodesSandboxWithACheckpointInASharedDirectoryGoesOnAsANewSandboxOnANodeSharingIt() throws Exception {
        Path shared = dir.resolve("shared-checkpoints").toAbsolutePath();
        join("node_lost", Instant.now().minusSeconds(1), shared);
        RuntimeHost lost = host("node_lost", 1, shared);
        SandboxRecord kept = lost.create(ALICE, SandboxRequest.defaults());
        lost.workspace(ALICE, kept.id()).write("notes.txt", new ByteArrayInputStream("before the loss".getBytes(StandardCharsets.UTF_8)));
        CheckpointRecord cp = lost.checkpoint(ALICE, kept.id());
        assertThat(cp.archiveDir()).isEqualTo(shared.toString());
        SandboxRecord bare = lost.create(ALICE, SandboxRequest.defaults());
        // a half-written archive of each node: a start-up clears its own node's only
        Path otherPartial = Files.createDirectories(shared.resolve(".partials").resolve("node_lost")).resolve("cp_inflight.tar.partial");
        Files.writeString(otherPartial, "half");
        Path ownPartial = Files.createDirectories(shared.resolve(".partials").resolve("node_b")).resolve("cp_dead.tar.partial");
        Files.writeString(ownPartial, "half");
        join("node_b", Instant.now().plusSeconds(60), shared);
        join("node_c", Instant.now().plusSeconds(60)); // runs the driver too, but does not share the directory
        RuntimeHost b = host("node_b", 1, shared);
        assertThat(otherPartial).exists();
        assertThat(ownPartial).doesNotExist();

        assertThat(new LostNodes(store.nodes(), store, "node_c", "node_c@1", Clock.systemUTC()).sweep()).containsExactly("node_lost");
        SandboxRecord old = store.sandboxes().find(kept.id()).orElseThrow();
        assertThat(old.state()).isEqualTo(SandboxState.FAILED);
        assertThat(old.stateReason()).contains("node_lost").contains("goes on as sbx_").contains("on node node_b").contains(cp.id());
        String next = old.stateReason().replaceAll(".*goes on as (sbx_[A-Za-z0-9]+).*", "$1");
        SandboxRecord handed = store.sandboxes().find(next).orElseThrow();
        assertThat(handed.state()).isEqualTo(SandboxState.CREATING);
        assertThat(handed.fence().ownerId()).isEqualTo("node_b@1");
        assertThat(handed.tenantId()).isEqualTo(kept.tenantId());
        assertThat(handed.stateReason()).startsWith("restoring from checkpoint " + cp.id() + " of " + kept.id() + " on node node_b");
        SandboxRecord failed = store.sandboxes().find(bare.id()).orElseThrow();
        assertThat(failed.state()).isEqualTo(SandboxState.FAILED);
        assertThat(failed.stateReason()).contains("node_lost").contains("no checkpoint");

        assertThat(b.restoreHandedOver()).containsExactly(next);
        SandboxRecord restored = b.get(ALICE, next);
        assertThat(restored.state()).isEqualTo(SandboxState.RUNNING);
        assertThat(restored.stateReason()).startsWith("restored from checkpoint " + cp.id() + " of " + kept.id()).contains("node_lost");
        try (InputStream in = b.workspace(ALICE, next).read("notes.txt")) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("before the loss");
        }
        assertThat(store.events().list(next, PageRequest.first(50)).data()).extracting(e -> e.type())
                .contains("sandbox.relocating", "sandbox.restored");
        assertThat(store.events().list(kept.id(), PageRequest.first(50)).data()).extracting(e -> e.type()).contains("sandbox.failed");
        assertThat(b.restoreHandedOver()).isEmpty();
        // the lost process is fenced out of its old sandbox
        assertThatThrownBy(() -> store.sandboxes().touch(kept.id(), kept.fence(), Instant.now())).isInstanceOf(FenceLostException.class);
    }

    @Test
    void eachNodeLooksAfterOnlyItsOwnSandboxesAndARestartTakesThemBackAsANewEpoch() throws Exception {
        RuntimeHost a = host("node_a", 1);
        SandboxRecord onA = a.create(ALICE, SandboxRequest.defaults());
        RuntimeHost b = host("node_b", 1);
        SandboxRecord onB = b.create(ALICE, SandboxRequest.defaults());
        Thread.sleep(300); // a few sweeps of both hosts

        SandboxRecord stillA = store.sandboxes().find(onA.id()).orElseThrow();
        assertThat(stillA.fence().ownerId()).isEqualTo("node_a@1");
        assertThat(stillA.state()).isEqualTo(SandboxState.RUNNING);

        // node a restarts: its new process (epoch 2) takes over its node's sandbox, and only that one
        a.close();
        host("node_a", 2);
        assertThat(store.sandboxes().find(onA.id()).orElseThrow().fence()).satisfies(f -> {
            assertThat(f.ownerId()).isEqualTo("node_a@2");
            assertThat(f.generation()).isEqualTo(2);
        });
        SandboxRecord stillB = store.sandboxes().find(onB.id()).orElseThrow();
        assertThat(stillB.fence().ownerId()).isEqualTo("node_b@1");
        assertThat(stillB.state()).isEqualTo(SandboxState.RUNNING);
    }

    @Test
    void exactlyOneSurvivorFailsALostNodesSandboxesWithTheReason() throws Exception {
        join("node_lost", Instant.now().minusSeconds(1));
        RuntimeHost lost = host("node_lost", 1);
        SandboxRecord held = lost.create(ALICE, SandboxRequest.defaults());
        join("node_b", Instant.now().plusSeconds(60));
        join("node_c", Instant.now().plusSeconds(60));

        List<Callable<List<String>>> survivors = List.of(
                () -> new LostNodes(store.nodes(), store, "node_b", "node_b@1", Clock.systemUTC()).sweep(),
                () -> new LostNodes(store.nodes(), store, "node_c", "node_c@1", Clock.systemUTC()).sweep());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<String> marked = new ArrayList<>();
        try {
            for (Future<List<String>> f : pool.invokeAll(survivors)) marked.addAll(f.get());
        } finally {
            pool.shutdownNow();
        }
        assertThat(marked).containsExactly("node_lost");
        assertThat(store.nodes().find("node_lost").orElseThrow().state()).isEqualTo(NodeState.LOST);

        SandboxRecord failed = store.sandboxes().find(held.id()).orElseThrow();
        assertThat(failed.state()).isEqualTo(SandboxState.FAILED);
        assertThat(failed.stateReason()).contains("node_lost").contains("stopped renewing its lease").contains("workspace")
                .contains("no checkpoint");
        assertThat(failed.fence().nodeId()).isIn("node_b", "node_c");
        assertThat(store.events().list(held.id(), PageRequest.first(50)).data()).anySatisfy(e -> assertThat(e.type()).isEqualTo("sandbox.failed"));
        // the lost process is fenced out of its old sandbox
        assertThatThrownBy(() -> store.sandboxes().touch(held.id(), held.fence(), Instant.now())).isInstanceOf(FenceLostException.class);
        assertThat(store.nodes().heartbeat("node_lost", 1, NodeCapacity.UNKNOWN, Instant.now(), Instant.now().plusSeconds(5))).isFalse();
    }
}
