package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static dev.paddock.host.HostFixture.BOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The warm pool on real bwrap: plain creates are claims, claims refill, other shapes start fresh, close ends the pool. */
@Tag("bwrap")
class WarmPoolTest {
    Path dataDir;
    Store store;
    BwrapDriver bwrap;
    RuntimeHost host;

    @BeforeEach
    void setUp() throws Exception {
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pdw");
        store = HostFixture.store(dataDir);
        bwrap = new BwrapDriver(BwrapConfig.defaults(dataDir));
        host = new RuntimeHost(HostFixture.config(dataDir, "bwrap").withWarmPool(2), store, List.of(bwrap), Clock.systemUTC());
        host.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> host.warmCount() == 2);
    }

    @AfterEach
    void tearDown() throws Exception {
        host.close();
        store.close();
        bwrap.list().forEach(bwrap::destroy); // sandboxes outlive a host by design; a test leaves none behind
        new ProcessBuilder("rm", "-rf", dataDir.toString()).start().waitFor();
    }

    @Test
    void plainCreateClaimsAPooledSandboxAndThePoolRefills() {
        List<String> pooled = bwrap.list().stream().map(SandboxRef::sandboxId).toList();
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        assertThat(pooled).contains(sbx.id());
        assertThat(firstEvent(sbx).data()).containsEntry("warm", true);
        assertThat(sbx.tenantId()).isEqualTo(ALICE.tenantId());

        host.run(ALICE, sbx.id(), ExecRequest.shell("echo mine > f.txt"), ExecOutput.DISCARD);
        assertThat(host.run(ALICE, sbx.id(), ExecRequest.of("cat", "f.txt"), ExecOutput.DISCARD).exitCode()).isZero();
        assertThatThrownBy(() -> host.get(BOB, sbx.id())).isInstanceOf(PaddockException.class);

        await().atMost(Duration.ofSeconds(20)).until(() -> host.warmCount() == 2);
        SandboxRecord second = host.create(BOB, SandboxRequest.defaults());
        assertThat(second.id()).isNotEqualTo(sbx.id());
        assertThat(host.workspace(BOB, second.id()).list("/workspace")).as("a pooled workspace starts empty").isEmpty();
    }

    @Test
    void requestsThatDifferFromThePoolShapeStartAFreshSandbox() {
        SandboxRequest withEnv = new SandboxRequest(null, null, false, null, Map.of("GREETING", "hi"), null, null, null, null);
        SandboxRecord sbx = host.create(ALICE, withEnv);
        assertThat(firstEvent(sbx).data()).containsEntry("warm", false);
        assertThat(host.warmCount()).isEqualTo(2);
    }

    @Test
    void closingTheHostEndsPooledSandboxesButNotClaimedOnes() {
        SandboxRecord claimed = host.create(ALICE, SandboxRequest.defaults());
        await().atMost(Duration.ofSeconds(20)).until(() -> host.warmCount() == 2);
        List<SandboxRef> pooled = bwrap.list().stream().filter(r -> !r.sandboxId().equals(claimed.id())).toList();
        host.close();
        assertThat(bwrap.list()).extracting(SandboxRef::sandboxId).containsExactly(claimed.id());
        assertThat(pooled).hasSize(2).allSatisfy(r -> assertThat(bwrap.workspace(r)).as("the files of pooled " + r.sandboxId()).isEmpty());
    }

    @Test
    void theNextHostEndsADeadHostsPooledSandboxesAndRemovesTheirFiles() {
        List<SandboxRef> pooled = bwrap.list();
        assertThat(pooled).hasSize(2);
        // the host dies (its sandboxes stay, as after kill -9); the next one starts on the same store and data directory
        RuntimeHost next = new RuntimeHost(HostFixture.config(dataDir, "bwrap"), store, List.of(bwrap), Clock.systemUTC());
        try {
            next.start();
            assertThat(bwrap.list()).as("no pooled sandbox of the dead host runs").doesNotContainAnyElementsOf(pooled);
            assertThat(pooled).allSatisfy(r -> assertThat(bwrap.workspace(r)).as("the files of pooled " + r.sandboxId()).isEmpty());
        } finally {
            next.close();
        }
    }

    @Test
    void closingTheHostWhileARefillStartsASandboxEndsThatSandboxToo() throws Exception {
        host.close();
        host = new RuntimeHost(HostFixture.config(dataDir, "bwrap"), store, List.of(bwrap), Clock.systemUTC());
        SandboxRequest kind = new SandboxRequest(null, null, false, null, Map.of("KIND", "slow"), null, null, null, null);
        java.util.concurrent.CountDownLatch preparing = new java.util.concurrent.CountDownLatch(1);
        host.addWarmPool(new WarmProfile("slow", 1, kind, r -> kind.env().equals(r.env()), s -> {
            preparing.countDown();
            try {
                Thread.sleep(1500); // a sandbox that takes a while to get ready, as a browser does
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, false, Duration.ZERO));
        host.start();
        assertThat(preparing.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(bwrap.list()).as("the refill's sandbox is up, being prepared").hasSize(1);
        host.close();
        assertThat(bwrap.list()).as("left running after the host closed").isEmpty();
    }

    @Test
    void aProfilesSandboxesArePreparedFrozenWhileTheyWaitAndThawedWhenClaimed() throws Exception {
        host.close();
        host = new RuntimeHost(HostFixture.config(dataDir, "bwrap"), store, List.of(bwrap), Clock.systemUTC());
        SandboxRequest kind = new SandboxRequest(null, null, false, null, Map.of("KIND", "prepared"), null, null, null, null);
        host.addWarmPool(new WarmProfile("prepared", 1, kind, r -> kind.env().equals(r.env()), s -> {
            try (var h = s.exec(ExecRequest.shell("echo ready > /tmp/prepared"), ExecOutput.DISCARD)) {
                assertThat(h.await().exitCode()).isZero();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, true, Duration.ofMillis(100)));
        host.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> host.warmCount("prepared") == 1);
        SandboxRef waiting = bwrap.list().getFirst();
        assertThat(bwrap.attach(waiting).orElseThrow().inspect().frozen()).as("frozen while it waits").isTrue();

        SandboxRecord claimed = host.create(ALICE, kind);
        assertThat(claimed.id()).isEqualTo(waiting.sandboxId());
        assertThat(firstEvent(claimed).data()).containsEntry("warm", true);
        var out = new java.io.ByteArrayOutputStream();
        host.run(ALICE, claimed.id(), ExecRequest.of("cat", "/tmp/prepared"), new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { out.write(d, o, l); }
            @Override public void stderr(byte[] d, int o, int l) {}
        });
        assertThat(out.toString()).isEqualTo("ready\n");
        assertThat(host.create(ALICE, SandboxRequest.defaults()).id()).as("other shapes start cold").isNotIn(waiting.sandboxId());
    }

    @Test
    void aSandboxWhosePreparationFailsIsDiscardedAndCreatesStartCold() {
        host.close();
        host = new RuntimeHost(HostFixture.config(dataDir, "bwrap"), store, List.of(bwrap), Clock.systemUTC());
        SandboxRequest kind = new SandboxRequest(null, null, false, null, Map.of("KIND", "broken"), null, null, null, null);
        java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
        host.addWarmPool(new WarmProfile("broken", 1, kind, r -> kind.env().equals(r.env()), s -> {
            tries.incrementAndGet();
            throw new IllegalStateException("cannot prepare");
        }, false, Duration.ofMillis(100)));
        host.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> tries.get() >= 1);
        await().atMost(Duration.ofSeconds(20)).until(() -> bwrap.list().isEmpty());
        SandboxRecord cold = host.create(ALICE, kind);
        assertThat(firstEvent(cold).data()).containsEntry("warm", false);
        assertThat(host.warmCount("broken")).isZero();
    }

    private SandboxEvent firstEvent(SandboxRecord r) {
        return host.events(ALICE.tenantId().equals(r.tenantId()) ? ALICE : BOB, r.id(), PageRequest.first(1)).data().getFirst();
    }
}
