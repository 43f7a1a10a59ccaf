package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.SandboxStore;
import dev.paddock.core.store.Store;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Faults the record and the backend must survive without a wedge: a sandbox left frozen (a host killed mid-checkpoint),
 * a suspend whose record write fails, an init killed from the host, an exec that arrives during a checkpoint's freeze.
 * Real bwrap, cgroups and SQLite.
 */
@Tag("bwrap")
class HostFaultTest {
    final BwrapDataDir dir = new BwrapDataDir("pdf"); // a new one per test: JUnit makes an instance per test
    final Path dataDir = dir.path;
    final Store store = dir.store;

    @AfterEach
    void tearDown() throws Exception {
        dir.close();
    }

    private List<SandboxDriver> drivers() {
        return List.of(new BwrapDriver(BwrapConfig.defaults(dataDir)));
    }

    private static List<String> events(RuntimeHost host, String id) {
        return host.events(ALICE, id, PageRequest.first(100)).data().stream().map(SandboxEvent::type).toList();
    }

    @Test
    void aSandboxLeftFrozenWhileItsRecordSaysRunningIsThawedByTheSweepAndByTheNextHost() {
        RuntimeHost host = HostFixture.host(dataDir, store, "bwrap", drivers());
        String id = host.create(ALICE, SandboxRequest.defaults()).id();
        host.liveSandbox(id).suspend(); // what a host killed mid-checkpoint leaves behind
        await().atMost(Duration.ofSeconds(10)).until(() -> !host.liveSandbox(id).inspect().frozen());
        assertThat(events(host, id)).contains("sandbox.reconciled");
        assertThat(host.run(ALICE, id, ExecRequest.shell("true"), ExecOutput.DISCARD).exitCode()).isZero();

        host.liveSandbox(id).suspend();
        host.close();
        RuntimeHost next = HostFixture.host(dataDir, store, "bwrap", drivers());
        try {
            assertThat(next.get(ALICE, id).state()).isEqualTo(SandboxState.RUNNING);
            assertThat(next.liveSandbox(id).inspect().frozen()).as("thawed when re-attached, before any sweep").isFalse();
            assertThat(next.run(ALICE, id, ExecRequest.shell("true"), ExecOutput.DISCARD).exitCode()).isZero();
        } finally {
            next.delete(ALICE, id);
            next.close();
        }
    }

    @Test
    void aSuspendWhoseRecordCannotBeWrittenLeavesTheBackendRunning() {
        Store failing = failingSuspends(store);
        RuntimeHost host = new RuntimeHost(HostFixture.config(dataDir, "bwrap").withSweepInterval(Duration.ofHours(1)), failing,
                drivers(), java.time.Clock.systemUTC());
        host.start();
        try {
            String id = host.create(ALICE, SandboxRequest.defaults()).id();
            assertThatThrownBy(() -> host.suspend(ALICE, id)).hasMessageContaining("disk full");
            assertThat(host.get(ALICE, id).state()).isEqualTo(SandboxState.RUNNING);
            assertThat(host.liveSandbox(id).inspect().frozen()).as("the record says running, so does the backend").isFalse();
            assertThat(host.run(ALICE, id, ExecRequest.shell("true"), ExecOutput.DISCARD).exitCode()).isZero();
            host.delete(ALICE, id);
        } finally {
            host.close();
        }
    }

    @Test
    void aSandboxWhoseInitWasKilledIsMarkedFailedAndExecAnswers503() throws Exception {
        RuntimeHost host = HostFixture.host(dataDir, store, "bwrap", drivers());
        try {
            String id = host.create(ALICE, SandboxRequest.defaults()).id();
            long init = Long.parseLong(Files.readString(dataDir.resolve("run").resolve(id).resolve("init.pid")).trim());
            ProcessHandle.of(init).orElseThrow().destroyForcibly();

            await().atMost(Duration.ofSeconds(10)).until(() -> host.get(ALICE, id).state() == SandboxState.FAILED);
            SandboxRecord failed = host.get(ALICE, id);
            assertThat(failed.stateReason()).contains("init process died");
            assertThat(events(host, id)).contains("sandbox.failed");
            assertThatThrownBy(() -> host.run(ALICE, id, ExecRequest.shell("true"), ExecOutput.DISCARD))
                    .isInstanceOfSatisfying(PaddockException.class, e -> {
                        assertThat(e.type()).isEqualTo(ErrorType.UNAVAILABLE);
                        assertThat(e.code()).isEqualTo("sandbox_unreachable");
                    });
            assertThat(host.workspace(ALICE, id).list("/workspace")).as("its workspace stays readable").isNotNull();
        } finally {
            host.close();
        }
    }

    @Test
    void anExecThatArrivesDuringACheckpointsFreezeWaitsAndSucceeds() throws Exception {
        RuntimeHost host = HostFixture.host(dataDir, store, "bwrap", drivers());
        try {
            String id = host.create(ALICE, SandboxRequest.defaults()).id();
            CountDownLatch frozen = new CountDownLatch(1);
            CountDownLatch thaw = new CountDownLatch(1);
            CompletableFuture<?> holder = CompletableFuture.runAsync(() -> { // as a checkpoint holds the gate while the sandbox is frozen
                try {
                    host.locks().frozen(id, () -> {
                        host.liveSandbox(id).suspend();
                        frozen.countDown();
                        thaw.await();
                        host.liveSandbox(id).resume();
                        return null;
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            frozen.await();
            CompletableFuture<ExecResult> exec = CompletableFuture.supplyAsync(
                    () -> host.run(ALICE, id, ExecRequest.shell("echo hi"), ExecOutput.DISCARD));
            Thread.sleep(300);
            assertThat(exec).as("waits for the freeze to end").isNotDone();
            thaw.countDown();
            holder.get(30, TimeUnit.SECONDS);
            assertThat(exec.get(30, TimeUnit.SECONDS).exitCode()).isZero();

            // and with a real checkpoint running beside a stream of execs, none is refused
            host.run(ALICE, id, ExecRequest.shell("dd if=/dev/zero of=big bs=1M count=64 status=none; seq 1 2000 | xargs -I{} touch f{}"),
                    ExecOutput.DISCARD);
            CompletableFuture<?> checkpoint = CompletableFuture.runAsync(() -> host.checkpoint(ALICE, id));
            int ran = 0;
            while (!checkpoint.isDone() || ran < 5) {
                assertThat(host.run(ALICE, id, ExecRequest.shell("true"), ExecOutput.DISCARD).exitCode()).isZero();
                ran++;
            }
            checkpoint.get(60, TimeUnit.SECONDS);
            host.delete(ALICE, id);
        } finally {
            host.close();
        }
    }

    @Test
    void uidClaimsOfAProcessKilledMidCreateAreFreedAtStartAndThePoolYieldsItsUids() throws Exception {
        BwrapConfig three = BwrapConfig.defaults(dataDir).withUidRange(BwrapConfig.DEFAULT_UID_BASE + 7_000, 3);
        // two claims of a process that died before it started its sandboxes
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path uids = Files.createDirectories(dataDir.resolve("uids"));
        for (int i = 0; i < 2; i++) {
            Files.writeString(uids.resolve(Integer.toString(three.uidBase() + i)), dev.paddock.core.Ids.newId("sbx") + "\n" + gone.pid());
        }
        RuntimeHost host = new RuntimeHost(HostFixture.config(dataDir, "bwrap").withWarmPool(2), store,
                List.of(new BwrapDriver(three)), java.time.Clock.systemUTC());
        host.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> host.warmCount() == 2); // 2 of the 3 uids wait in the pool
            String plain = host.create(ALICE, SandboxRequest.defaults()).id(); // from the pool
            SandboxRequest other = new SandboxRequest(null, null, false, null, java.util.Map.of("SHAPE", "other"), null, null, null, null);
            String cold = host.create(ALICE, other).id(); // the last free uid
            String yielded = host.create(ALICE, other).id(); // none free: the pool gives one up
            assertThat(List.of(plain, cold, yielded)).doesNotHaveDuplicates();
            assertThatThrownBy(() -> host.create(ALICE, other)).isInstanceOfSatisfying(PaddockException.class,
                    e -> assertThat(e.code()).isEqualTo("uid_range_exhausted"));
            for (String id : List.of(plain, cold, yielded)) host.delete(ALICE, id);
        } finally {
            host.close();
        }
    }

    /** A store whose writes of the suspended state fail, as on a full disk. */
    private static Store failingSuspends(Store real) {
        SandboxStore sandboxes = (SandboxStore) Proxy.newProxyInstance(SandboxStore.class.getClassLoader(), new Class<?>[] {SandboxStore.class},
                (proxy, m, args) -> {
                    if (m.getName().equals("transition") && args[2] == SandboxState.SUSPENDED) {
                        throw new PaddockException(ErrorCode.STORAGE_FULL, "disk full");
                    }
                    return invoke(m, real.sandboxes(), args);
                });
        return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
                (proxy, m, args) -> m.getName().equals("sandboxes") ? sandboxes : invoke(m, real, args));
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
