package dev.paddock.host;

import dev.paddock.core.store.Store;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A data directory for tests on real bwrap: directly under /tmp (bwrap's socket paths must stay short), with a SQLite
 * store. Closing it ends every sandbox left in it (sandboxes outlive a host by design; a test leaves none behind) and
 * removes it.
 */
final class BwrapDataDir implements AutoCloseable {
    final Path path;
    final Store store;

    BwrapDataDir(String prefix) {
        try {
            path = Files.createTempDirectory(Path.of("/tmp"), prefix);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        store = HostFixture.store(path);
    }

    BwrapDriver driver() {
        return new BwrapDriver(BwrapConfig.defaults(path));
    }

    @Override
    public void close() throws Exception {
        store.close();
        BwrapDriver bwrap = driver();
        bwrap.list().forEach(bwrap::destroy);
        new ProcessBuilder("rm", "-rf", path.toString()).start().waitFor();
    }
}
