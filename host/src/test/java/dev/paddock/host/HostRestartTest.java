package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.FenceLostException;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.UnavailableDriver;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A host that goes away without terminating its sandboxes, and the host that follows it on the same data dir:
 * running bwrap sandboxes are re-attached under a new fence generation; sandboxes whose backend is gone are
 * terminated with their workspace kept; the old fence can no longer write. Also the idle policy on a driver that
 * can suspend. Real bwrap, cgroups and SQLite.
 */
@Tag("bwrap")
class HostRestartTest {
    final BwrapDataDir dir = new BwrapDataDir("pdh"); // a new one per test: JUnit makes an instance per test
    final Path dataDir = dir.path;
    final Store store = dir.store;

    @AfterEach
    void tearDown() throws Exception {
        dir.close();
    }

    private List<SandboxDriver> drivers() {
        return List.of(new BwrapDriver(BwrapConfig.defaults(dataDir)), HostFixture.subprocess(dataDir));
    }

    @Test
    void restartedHostReattachesRunningSandboxesAndReapsLostOnes() {
        RuntimeHost first = HostFixture.host(dataDir, store, "bwrap", drivers());
        SandboxRecord kept = first.create(ALICE, SandboxRequest.defaults());
        first.startProcess(ALICE, kept.id(), ExecRequest.shell("echo started > bg.txt; sleep 300"));
        first.run(ALICE, kept.id(), ExecRequest.shell("echo before > before.txt"), ExecOutput.DISCARD);
        SandboxRecord lost = first.create(ALICE, new SandboxRequest("subprocess", null, false, null, null, null, null, null, null));
        first.close(); // the host dies: nothing is terminated

        RuntimeHost second = HostFixture.host(dataDir, store, "bwrap", drivers());
        try {
            SandboxRecord reattached = second.get(ALICE, kept.id());
            assertThat(reattached.state()).isEqualTo(SandboxState.RUNNING);
            assertThat(reattached.fence().ownerId()).isEqualTo(second.ownerId());
            assertThat(reattached.fence().generation()).isEqualTo(2);
            assertThat(second.run(ALICE, kept.id(), ExecRequest.shell("cat before.txt"), ExecOutput.DISCARD).exitCode()).isZero();
            assertThat(second.processes(ALICE, kept.id())).anySatisfy(p -> assertThat(p.running()).isTrue());

            SandboxRecord reaped = second.get(ALICE, lost.id());
            assertThat(reaped.state()).isEqualTo(SandboxState.TERMINATED);
            assertThat(reaped.stateReason()).isEqualTo("orphan_reaped");
            assertThat(second.workspace(ALICE, lost.id()).list("/workspace")).isNotNull();

            List<String> events = second.events(ALICE, kept.id(), PageRequest.first(100)).data().stream().map(SandboxEvent::type).toList();
            assertThat(events).contains("sandbox.reattached");

            // the first host's fence is stale: it can neither change the sandbox nor write its events
            assertThatThrownBy(() -> store.sandboxes().transition(kept.id(), kept.fence(), SandboxState.SUSPENDED, "stale"))
                    .isInstanceOf(FenceLostException.class);
            assertThatThrownBy(() -> store.events().append(kept.id(), kept.fence(), "stale.event", Map.of()))
                    .isInstanceOf(FenceLostException.class);
        } finally {
            second.delete(ALICE, kept.id());
            second.close();
        }
    }

    @Test
    void aSandboxWhoseDriverCannotRunAfterARestartIsLeftAloneAndAnswersWithTheReason() {
        RuntimeHost first = HostFixture.host(dataDir, store, "bwrap", drivers());
        SandboxRecord kept = first.create(ALICE, SandboxRequest.defaults());
        first.close(); // the host dies; the next one starts on a machine where bwrap cannot run (say, an upgrade broke it)

        BwrapDriver bwrap = new BwrapDriver(BwrapConfig.defaults(dataDir));
        var broken = new UnavailableDriver(bwrap.conformance(), "bubblewrap is not installed");
        RuntimeHost second = HostFixture.host(dataDir, store, "subprocess", List.of(HostFixture.subprocess(dataDir), broken));
        try {
            SandboxRecord after = second.get(ALICE, kept.id());
            assertThat(after.state()).isEqualTo(SandboxState.RUNNING);
            assertThat(after.fence()).as("not taken over").isEqualTo(kept.fence());
            assertThatThrownBy(() -> second.run(ALICE, kept.id(), ExecRequest.shell("true"), ExecOutput.DISCARD))
                    .hasMessageContaining("bubblewrap is not installed")
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo(ErrorCode.DRIVER_UNAVAILABLE.wire()));
        } finally {
            second.close();
        }
        // the backend kept running it all along: a host that can run bwrap again re-attaches it
        RuntimeHost third = HostFixture.host(dataDir, store, "bwrap", drivers());
        try {
            assertThat(third.run(ALICE, kept.id(), ExecRequest.shell("true"), ExecOutput.DISCARD).exitCode()).isZero();
        } finally {
            third.delete(ALICE, kept.id());
            third.close();
        }
    }

    @Test
    void sandboxCaughtMidCreateFailsAndItsBackendAndFilesAreRemoved() {
        // a host died between starting the backend sandbox and recording its handle
        String id = dev.paddock.core.Ids.newId("sbx");
        java.time.Instant now = java.time.Instant.now();
        Fence deadHost = new Fence("host_gone", 1);
        SandboxSpec spec = SandboxSpec.defaults(id, ALICE.tenantId());
        store.sandboxes().insert(new SandboxRecord(id, ALICE.tenantId(), "bwrap", SandboxState.CREATING, spec, deadHost,
                null, null, null, null, now, now, now, null));
        BwrapDriver backend = new BwrapDriver(BwrapConfig.defaults(dataDir));
        backend.create(spec, deadHost);
        assertThat(backend.list()).extracting(SandboxRef::sandboxId).contains(id);

        RuntimeHost host = HostFixture.host(dataDir, store, "bwrap", drivers());
        try {
            SandboxRecord after = host.get(ALICE, id);
            assertThat(after.state()).as("it never ran").isEqualTo(SandboxState.FAILED);
            assertThat(after.stateReason()).contains("stopped before the sandbox finished starting");
            assertThat(backend.list()).extracting(SandboxRef::sandboxId).doesNotContain(id);
            assertThat(backend.workspace(new SandboxRef(id, "bwrap", null))).as("what its start had made").isEmpty();
        } finally {
            host.close();
        }
    }

    @Test
    void idleSandboxIsSuspendedAndTheNextExecResumesIt() {
        RuntimeHost host = HostFixture.host(dataDir, store, "bwrap", drivers());
        try {
            SandboxRequest idle = new SandboxRequest(null, null, false, null, null, null, null, Duration.ofMillis(300), Duration.ofHours(1));
            SandboxRecord sbx = host.create(ALICE, idle);
            await().atMost(Duration.ofSeconds(10)).until(() -> host.get(ALICE, sbx.id()).state() == SandboxState.SUSPENDED);
            assertThat(host.get(ALICE, sbx.id()).stateReason()).isEqualTo("idle");

            assertThat(host.run(ALICE, sbx.id(), ExecRequest.of("true"), ExecOutput.DISCARD).exitCode()).isZero();
            assertThat(host.get(ALICE, sbx.id()).state()).isEqualTo(SandboxState.RUNNING);

            host.suspend(ALICE, sbx.id());
            assertThatThrownBy(() -> host.run(ALICE, sbx.id(), ExecRequest.of("true"), ExecOutput.DISCARD))
                    .hasMessageContaining("resume it first");
            host.delete(ALICE, sbx.id());
        } finally {
            host.close();
        }
    }

    @Test
    void idleSuspendedSandboxIsTerminatedAfterTheSecondLimit() {
        RuntimeHost host = HostFixture.host(dataDir, store, "bwrap", drivers());
        try {
            SandboxRequest idle = new SandboxRequest(null, null, false, null, null, null, null, Duration.ofMillis(200), Duration.ofMillis(300));
            SandboxRecord sbx = host.create(ALICE, idle);
            await().atMost(Duration.ofSeconds(10)).until(() -> host.get(ALICE, sbx.id()).state() == SandboxState.TERMINATED);
            List<String> events = host.events(ALICE, sbx.id(), PageRequest.first(100)).data().stream().map(SandboxEvent::type).toList();
            assertThat(events).containsSubsequence("sandbox.suspended", "sandbox.terminated");
            assertThat(host.get(ALICE, sbx.id()).stateReason()).isEqualTo("idle_expired");
        } finally {
            host.close();
        }
    }
}
