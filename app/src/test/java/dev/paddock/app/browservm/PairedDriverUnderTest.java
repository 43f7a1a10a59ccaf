package dev.paddock.app.browservm;

import dev.paddock.conformance.DriverUnderTest;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A relayed driver (browser-vm, daemon) as the conformance kit sees it: kept for the whole class, so closing it after
 * a check leaves the tab or daemon paired; each check's sandbox gets the runtime's own limits, no network, and the
 * tenant the runtime is paired with.
 */
record PairedDriverUnderTest(SandboxDriver driver, String tenant, Supplier<SandboxDriver> restart, Path dataDir) implements DriverUnderTest {

    @Override
    public SandboxSpec spec(String sandboxId) {
        return new SandboxSpec(sandboxId, tenant, null, false, driver.limits(null), Map.of(), NetworkPolicy.NONE);
    }

    @Override
    public SandboxDriver restarted() {
        return restart.get();
    }
}
