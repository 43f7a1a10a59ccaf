package dev.paddock.host;

import dev.paddock.access.Principal;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.store.Store;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.store.JdbcStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** A real host on a temp data dir: SQLite store plus the drivers a test names. */
final class HostFixture {
    static final Principal ALICE = new Principal("tenant-alice", "key_alice", false);
    static final Principal BOB = new Principal("tenant-bob", "key_bob", false);

    static Store store(Path dataDir) {
        return JdbcStore.openSqlite(dataDir.resolve("paddock.db"));
    }

    static SubprocessDriver subprocess(Path dataDir) {
        return new SubprocessDriver(dataDir.resolve("subprocess"));
    }

    static HostConfig config(Path dataDir, String defaultDriver) {
        return HostConfig.defaults(dataDir).withDefaultDriver(defaultDriver).withSweepInterval(Duration.ofMillis(100));
    }

    static RuntimeHost host(Path dataDir, Store store, String defaultDriver, List<SandboxDriver> drivers) {
        RuntimeHost host = new RuntimeHost(config(dataDir, defaultDriver), store, drivers, Clock.systemUTC());
        host.start();
        return host;
    }

    private HostFixture() {}
}
