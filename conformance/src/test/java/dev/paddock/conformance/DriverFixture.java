package dev.paddock.conformance;

import dev.paddock.core.spi.SandboxDriver;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One driver under test: how to build an instance on a data directory (twice on the same directory for the
 * orphan-reap claims) and, where the machine may lack something the driver needs, why it cannot run here.
 */
public record DriverFixture(String name, Factory factory, Supplier<Optional<String>> unavailableReason) {
    @FunctionalInterface
    public interface Factory {
        SandboxDriver create(Path dataDir) throws Exception;
    }

    public static DriverFixture of(String name, Factory factory) {
        return new DriverFixture(name, factory, Optional::empty);
    }

    public DriverFixture unlessMissing(Supplier<Optional<String>> reason) {
        return new DriverFixture(name, factory, reason);
    }

    public SandboxDriver create(Path dataDir) throws Exception {
        return factory.create(dataDir);
    }

    /** The display name JUnit shows for every test of this driver, e.g. {@code [driver=bwrap]}. */
    @Override
    public String toString() {
        return name;
    }
}
