package dev.paddock.app.serve;

import dev.paddock.core.TestMode;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import dev.paddock.driver.subprocess.SubprocessDriver;
import java.util.List;

/** Builds the configured driver, or says exactly why it cannot run here. */
final class DriverLoader {
    private DriverLoader() {}

    static SandboxDriver load(ServeSettings s) {
        return switch (s.driver()) {
            case BwrapDriver.ID -> bwrap(s);
            case "subprocess" -> subprocess(s);
            default -> throw new StartupException("unknown driver '" + s.driver() + "'; use bwrap"
                    + (TestMode.enabled() ? " or subprocess" : ""));
        };
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

    private static SandboxDriver bwrap(ServeSettings s) {
        BwrapConfig config = new BwrapConfig(s.dataDir(), s.bwrapUidBase(), s.bwrapUidCount(), s.bwrapPath(), s.cgroupRoot(), null);
        List<String> problems = BwrapDriver.checkHost(config);
        if (!problems.isEmpty()) {
            throw new StartupException("the bwrap driver cannot run on this machine:", problems);
        }
        return new BwrapDriver(config);
    }

    private static SandboxDriver subprocess(ServeSettings s) {
        if (!TestMode.enabled()) {
            throw new StartupException("the subprocess driver runs commands without any isolation and exists only for tests;"
                    + " set PADDOCK_TEST_MODE=1 to use it, or use --driver bwrap");
        }
        return new SubprocessDriver(s.dataDir().resolve("subprocess"));
    }
}
