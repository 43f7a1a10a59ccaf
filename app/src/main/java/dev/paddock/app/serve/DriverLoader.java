package dev.paddock.app.serve;

import dev.paddock.core.TestMode;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.UnavailableDriver;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import dev.paddock.driver.docker.DockerConfig;
import dev.paddock.driver.docker.DockerDriver;
import dev.paddock.driver.gvisor.GvisorConfig;
import dev.paddock.driver.gvisor.GvisorDriver;
import dev.paddock.driver.kubernetes.KubernetesDriver;
import dev.paddock.driver.subprocess.SubprocessDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Builds the configured default driver, or says exactly why it cannot run here, and every other driver this build
 * knows: each one this machine can run is loaded beside it, each one it cannot is listed with the reason (see
 * {@link UnavailableDriver}).
 */
public final class DriverLoader {
    /** A driver this build knows: its claims, what this machine lacks for it, and how to start it. */
    private record Known(String id, Supplier<Conformance> record, Function<ServeSettings, List<String>> problems,
                         Function<ServeSettings, SandboxDriver> start) {
        SandboxDriver loadOrExplain(ServeSettings s) {
            List<String> missing = problems.apply(s);
            return missing.isEmpty() ? start.apply(s) : new UnavailableDriver(record.get(), String.join("; ", missing));
        }
    }

    private static final List<Known> KNOWN = List.of(
            new Known(BwrapDriver.ID, BwrapDriver::conformanceRecord, s -> BwrapDriver.checkHost(bwrapConfig(s)), s -> new BwrapDriver(bwrapConfig(s))),
            new Known(GvisorDriver.ID, GvisorDriver::conformanceRecord, s -> GvisorDriver.checkHost(gvisorConfig(s)), s -> new GvisorDriver(gvisorConfig(s))),
            new Known(DockerDriver.ID, DockerDriver::conformanceRecord, s -> DockerDriver.checkHost(dockerConfig(s)), s -> new DockerDriver(dockerConfig(s))),
            new Known(KubernetesDriver.ID, KubernetesDriver::conformanceRecord, KubernetesSettings::missingCluster, s -> s.kubernetes().start()));

    private DriverLoader() {}

    /** The default driver first, then the others this build knows; fails when the default cannot run here. */
    static List<SandboxDriver> loadAll(ServeSettings s) {
        List<SandboxDriver> drivers = new ArrayList<>();
        drivers.add(load(s));
        try {
            for (Known k : KNOWN) if (!k.id().equals(s.driver())) drivers.add(k.loadOrExplain(s));
        } catch (RuntimeException e) {
            drivers.forEach(DriverLoader::closeQuietly);
            throw e;
        }
        return drivers;
    }

    /** The configured default driver, or a {@link StartupException} with what this machine lacks for it. */
    public static SandboxDriver load(ServeSettings s) {
        if (s.driver().equals(SubprocessDriver.ID)) return subprocess(s);
        Known k = KNOWN.stream().filter(d -> d.id().equals(s.driver())).findFirst()
                .orElseThrow(() -> new StartupException("unknown driver '" + s.driver() + "'; use one of "
                        + KNOWN.stream().map(Known::id).toList() + (TestMode.enabled() ? " or subprocess" : "")));
        List<String> problems = k.problems().apply(s);
        if (!problems.isEmpty()) throw new StartupException("the " + k.id() + " driver cannot run on this machine:", problems);
        return k.start().apply(s);
    }

    /**
     * The driver for sessions of sandbox-free environments when the operator allowed them ({@code allow_sandbox_free}),
     * to be reserved for those sessions; null when they are not allowed or the default driver already is that driver
     * (test mode).
     */
    static SandboxDriver sandboxFree(ServeSettings s, SandboxDriver defaultDriver) {
        if (!s.allowSandboxFree() || defaultDriver.id().equals(SubprocessDriver.ID)) return null;
        return SubprocessDriver.forSandboxFreeSessions(s.dataDir().resolve("sandbox-free"));
    }

    private static BwrapConfig bwrapConfig(ServeSettings s) {
        return new BwrapConfig(s.dataDir(), s.bwrapUidBase(), s.bwrapUidCount(), s.bwrapPath(), s.cgroupRoot(), null);
    }

    /** Its files go to {@code <data-dir>/gvisor}; it reads Paddock images from {@code <data-dir>/images}, as bwrap does. */
    private static GvisorConfig gvisorConfig(ServeSettings s) {
        return new GvisorConfig(s.dataDir(), s.runscPath(), s.gvisorPlatform(), null);
    }

    /** Its files go to {@code <data-dir>/docker}; it reads Paddock images from {@code <data-dir>/images}, as bwrap does. */
    private static DockerConfig dockerConfig(ServeSettings s) {
        String host = s.dockerHost() != null ? s.dockerHost() : System.getenv("DOCKER_HOST");
        return new DockerConfig(s.dataDir(), host, s.dockerRuntime(), DockerConfig.DEFAULT_UID, null);
    }

    private static SandboxDriver subprocess(ServeSettings s) {
        if (!TestMode.enabled()) {
            throw new StartupException("the subprocess driver runs commands without any isolation and exists only for tests;"
                    + " set PADDOCK_TEST_MODE=1 to use it, or use --driver bwrap");
        }
        return new SubprocessDriver(s.dataDir().resolve("subprocess"));
    }

    private static void closeQuietly(SandboxDriver d) {
        try {
            d.close();
        } catch (RuntimeException e) {
            // already failing: the first error is the one to report
        }
    }
}
