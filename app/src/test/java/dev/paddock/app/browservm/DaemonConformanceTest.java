package dev.paddock.app.browservm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.app.daemon.DaemonRuntime;
import dev.paddock.app.serve.ServeSettings;
import dev.paddock.conformance.DriverConformanceKit;
import dev.paddock.conformance.DriverUnderTest;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.conformance.Conformance.Durability;
import dev.paddock.core.conformance.Conformance.Enforcement;
import dev.paddock.core.conformance.Conformance.Lease;
import dev.paddock.core.conformance.Conformance.OrphanReap;
import dev.paddock.core.conformance.Conformance.Support;
import dev.paddock.driver.browservm.BrowserRuntime;
import dev.paddock.driver.browservm.DaemonDriver;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance kit run against the daemon driver: one in-process paired daemon (what {@code paddock runtime pair}
 * runs, with the bubblewrap driver) connected to a real server's relay over a WebSocket on loopback, for the class;
 * the kit creates each check's sandbox on it through {@link DaemonDriver} and proves every claim of its record.
 */
@Tag("bwrap")
class DaemonConformanceTest extends DriverConformanceKit {
    private static final String TENANT = "tenant_a";

    @TempDir static Path dataDir;
    static Path daemonDir;
    static BrowserVmStack stack;
    static DaemonDriver driver;
    static DaemonRuntime daemon;

    @BeforeAll
    static void pairOneDaemon() throws Exception {
        stack = new BrowserVmStack(dataDir, dataDir.resolve("no-assets"));
        driver = new DaemonDriver(stack.vm);
        daemonDir = Files.createTempDirectory(Path.of("/tmp"), "pdc"); // bwrap's socket paths must stay short
        ServeSettings local = ServeSettings.resolve(Map.of("data_dir", daemonDir.toString(), "driver", "bwrap"), Map.of(), null, daemonDir);
        daemon = DaemonRuntime.start(local, URI.create(stack.url), "conformance.local", 4, Duration.ofMinutes(1), line -> {});
        daemon.daemon().pair(stack.vm.pair(TENANT, BrowserRuntime.DAEMON_KIND).code());
        CompletableFuture.runAsync(() -> {
            try {
                daemon.daemon().run();
            } catch (InterruptedException ignored) {
                // closed
            }
        });
        String id = daemon.daemon().runtimeId();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (stack.vm.runtime(TENANT, id).map(v -> v.capacity() == null || v.capacity() != 4).orElse(true)) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("the daemon did not say hello");
            Thread.sleep(20);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (daemon != null) daemon.close();
        if (driver != null) driver.close();
        if (stack != null) stack.close();
        if (daemonDir != null) new ProcessBuilder("rm", "-rf", daemonDir.toString()).start().waitFor();
    }

    @Override
    protected String driverName() {
        return DaemonDriver.ID;
    }

    @Override
    protected DriverUnderTest driverUnderTest() {
        return new PairedDriverUnderTest(driver, TENANT, () -> new DaemonDriver(stack.vm), dataDir);
    }

    @Test
    void recordStatesWhatADaemonCanAndCannotDo() {
        Conformance claims = driver.conformance();
        assertThat(claims.lifecycle().lease()).isEqualTo(Lease.PROVIDER_ONLY);
        assertThat(claims.lifecycle().suspendResume()).isEqualTo(Support.UNSUPPORTED);
        assertThat(claims.lifecycle().orphanReap()).isEqualTo(OrphanReap.UNAVAILABLE);
        assertThat(claims.workspace().durability()).isEqualTo(Durability.BEST_EFFORT);
        assertThat(claims.credentialEgress().enforcement()).as("the server's egress proxy does not reach the daemon").isEqualTo(Enforcement.UNSUPPORTED);
        assertThat(claims.runtimeCheckpoints()).containsExactly("workspace_tar");
        assertThat(claims.portFacts().unavailable()).contains("network", "credential_injection", "background_processes", "suspend_resume");
    }
}
