package dev.paddock.conformance;

import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import dev.paddock.driver.gvisor.GvisorConfig;
import dev.paddock.driver.gvisor.GvisorDriver;
import dev.paddock.driver.subprocess.SubprocessDriver;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Every driver the kit runs against. Adding a driver is one line here. */
public final class DriverFixtures {
    private DriverFixtures() {}

    public static List<DriverFixture> all() {
        return List.of(
                DriverFixture.of("subprocess", SubprocessDriver::new),
                DriverFixture.of("bwrap", dataDir -> new BwrapDriver(BwrapConfig.defaults(dataDir))).unlessMissing(DriverFixtures::bwrapMissing),
                DriverFixture.of("gvisor", dataDir -> new GvisorDriver(GvisorConfig.defaults(dataDir))).unlessMissing(DriverFixtures::gvisorMissing));
    }

    private static Optional<String> bwrapMissing() {
        List<String> problems = BwrapDriver.checkHost(BwrapConfig.defaults(Path.of("/tmp")));
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    private static Optional<String> gvisorMissing() {
        List<String> problems = GvisorDriver.checkHost(GvisorConfig.defaults(Path.of("/tmp")));
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }
}
