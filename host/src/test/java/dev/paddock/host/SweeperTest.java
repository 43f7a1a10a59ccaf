package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.SandboxStore;
import dev.paddock.core.store.Store;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sweep visits every sandbox of the host, so what it costs per sandbox is paid for all of them on every pass: a
 * sandbox with nothing due costs no read of its record. Real SQLite store and the subprocess driver.
 */
class SweeperTest {
    @TempDir Path dataDir;
    final AtomicInteger finds = new AtomicInteger();
    Store store;
    RuntimeHost host;

    @AfterEach
    void tearDown() throws Exception {
        if (host != null) host.close();
        if (store != null) store.close();
    }

    private void startHost() throws Exception {
        Files.createDirectories(dataDir);
        store = countingFinds(HostFixture.store(dataDir));
        // no sweep of its own: the test sweeps
        host = new RuntimeHost(HostFixture.config(dataDir, "subprocess").withSweepInterval(Duration.ofHours(1)), store,
                List.of(HostFixture.subprocess(dataDir)), Clock.systemUTC());
        host.start();
    }

    @Test
    void aPassOverRunningSandboxesWithNothingDueReadsNoRecord() throws Exception {
        startHost();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) ids.add(host.create(ALICE, SandboxRequest.defaults()).id());

        finds.set(0);
        new Sweeper(host.owned()).sweep();

        assertThat(finds.get()).isZero();
        for (String id : ids) assertThat(host.get(ALICE, id).state()).isEqualTo(SandboxState.RUNNING);
    }

    @Test
    void aSandboxPastItsLifetimeIsStillTerminatedBesideOnesWithNothingDue() throws Exception {
        startHost();
        String kept = host.create(ALICE, SandboxRequest.defaults()).id();
        String expiring = host.create(ALICE, SandboxRequest.defaults().withTimeout(Duration.ofMillis(50))).id();
        Thread.sleep(100);

        new Sweeper(host.owned()).sweep();

        assertThat(host.get(ALICE, expiring).state()).isEqualTo(SandboxState.TERMINATED);
        assertThat(host.get(ALICE, kept).state()).isEqualTo(SandboxState.RUNNING);
    }

    @Test
    void theSweeperRestsTheIntervalOrFourTimesItsLastPassWhicheverIsLonger() {
        SweepPause pause = new SweepPause(Duration.ofSeconds(5));

        assertThat(pause.after(Duration.ofMillis(200))).isEqualTo(5_000);
        assertThat(pause.after(Duration.ofSeconds(3))).as("a pass of 3 s over many sandboxes").isEqualTo(12_000);
    }

    private Store countingFinds(Store real) {
        SandboxStore sandboxes = (SandboxStore) Proxy.newProxyInstance(SandboxStore.class.getClassLoader(), new Class<?>[] {SandboxStore.class},
                (proxy, m, args) -> {
                    if (m.getName().equals("find")) finds.incrementAndGet();
                    return invoke(m, real.sandboxes(), args);
                });
        return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
                (proxy, m, args) -> m.getName().equals("sandboxes") ? sandboxes : invoke(m, real, args));
    }

    private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
