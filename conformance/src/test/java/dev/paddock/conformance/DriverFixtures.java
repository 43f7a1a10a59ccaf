package dev.paddock.conformance;

import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import dev.paddock.driver.docker.DockerConfig;
import dev.paddock.driver.docker.DockerDriver;
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
                DriverFixture.of("docker", dataDir -> new DockerDriver(DockerConfig.defaults(dataDir))).unlessMissing(() -> dockerMissing("runc")),
                DriverFixture.of("docker-runsc", dataDir -> new DockerDriver(DockerConfig.defaults(dataDir).withRuntime("runsc")))
                        .unlessMissing(() -> dockerMissing("runsc")),
                DriverFixture.of("gvisor", dataDir -> new GvisorDriver(GvisorConfig.defaults(dataDir))).unlessMissing(DriverFixtures::gvisorMissing));
    }

    private static Optional<String> bwrapMissing() {
        List<String> problems = BwrapDriver.checkHost(BwrapConfig.defaults(Path.of("/tmp")));
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    private static Optional<String> dockerMissing(String runtime) {
        List<String> problems = DockerDriver.checkHost(DockerConfig.defaults(Path.of("/tmp")).withRuntime(runtime));
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    private static Optional<String> gvisorMissing() {
        List<String> problems = GvisorDriver.checkHost(GvisorConfig.defaults(Path.of("/tmp")));
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }
}
