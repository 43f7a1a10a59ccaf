package dev.paddock.conformance;

import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import dev.paddock.driver.docker.DockerConfig;
import dev.paddock.driver.docker.DockerDriver;
import dev.paddock.driver.gvisor.GvisorConfig;
import dev.paddock.driver.gvisor.GvisorDriver;
import dev.paddock.driver.kubernetes.MockClusterDrivers;
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
                DriverFixture.of("gvisor", dataDir -> new GvisorDriver(GvisorConfig.defaults(dataDir))).unlessMissing(DriverFixtures::gvisorMissing),
                // on fabric8's mock API server with a fake kubelet (pods run as bwrap processes): no real cluster here
                DriverFixture.of("kubernetes", MockClusterDrivers::on).unlessMissing(DriverFixtures::bwrapMissing),
                // the same with sandboxes as agent-sandbox Sandbox objects, run by a fake agent-sandbox controller
                DriverFixture.of("kubernetes-agent-sandbox", MockClusterDrivers::onAgentSandbox).unlessMissing(DriverFixtures::bwrapMissing))
                .stream().filter(f -> ONLY == null || ONLY.isBlank() || f.name().equals(ONLY)).toList();
    }

    /** {@code -Dpaddock.conformance.driver=NAME} runs the kit for one fixture only. */
    private static final String ONLY = System.getProperty("paddock.conformance.driver");

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
