package dev.paddock.conformance;

import dev.paddock.core.spi.SandboxDriver;
import java.nio.file.Path;

/** A fixture's driver built for one check on a data directory of its own; closing it deletes the directory. */
record FreshDriver(DriverFixture fixture, Path dataDir, SandboxDriver driver) implements DriverUnderTest {
    static FreshDriver of(DriverFixture fixture) throws Exception {
        Path dataDir = DataDirs.create();
        try {
            return new FreshDriver(fixture, dataDir, fixture.create(dataDir));
        } catch (Exception | Error e) {
            DataDirs.deleteQuietly(dataDir);
            throw e;
        }
    }

    @Override
    public SandboxDriver restarted() throws Exception {
        return fixture.create(dataDir);
    }

    @Override
    public void close() {
        try {
            driver.close();
        } finally {
            DataDirs.deleteQuietly(dataDir);
        }
    }
}
