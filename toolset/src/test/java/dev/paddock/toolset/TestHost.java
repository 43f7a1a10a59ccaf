package dev.paddock.toolset;

import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.store.Store;
import dev.paddock.host.HostConfig;
import dev.paddock.access.Principal;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import dev.paddock.store.JdbcStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/** A real runtime host on a temp data dir with a real SQLite store and the driver a test names. */
final class TestHost implements AutoCloseable {
    static final Principal ALICE = new Principal("tenant-alice", "key_alice", false);
    static final Principal BOB = new Principal("tenant-bob", "key_bob", false);

    final Store store;
    final RuntimeHost host;
    private final SandboxDriver driver;

    TestHost(Path dataDir, SandboxDriver driver) {
        this.driver = driver;
        store = JdbcStore.openSqlite(dataDir.resolve("paddock.db"));
        host = new RuntimeHost(HostConfig.defaults(dataDir).withDefaultDriver(driver.id()), store, List.of(driver), Clock.systemUTC());
        host.start();
    }

    String newSandbox() {
        return host.create(ALICE, SandboxRequest.defaults()).id();
    }

    @Override
    public void close() {
        host.close();
        store.close();
        // sandboxes outlive a host by design (a restart re-attaches them); a test leaves none behind
        driver.list().forEach(driver::destroy);
    }
}
