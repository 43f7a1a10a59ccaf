package dev.paddock.conformance;

import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import java.nio.file.Path;

/**
 * A driver as the conformance kit needs it for one check: the driver, the spec of the sandbox the check runs in,
 * a second instance on the same state (what a restarted host makes: the orphan-reap claims) and a directory of the
 * driver's own for proofs that keep files beside it. Closing it releases what was made for this check only; a
 * driver kept for a whole class (a paired browser tab) stays up.
 */
public interface DriverUnderTest extends AutoCloseable {
    SandboxDriver driver();

    /** The spec of a sandbox with the driver's default settings. */
    default SandboxSpec spec(String sandboxId) {
        return SandboxSpec.defaults(sandboxId, "tenant_conformance");
    }

    /** Another instance of the driver on the same state; the kit closes it. */
    SandboxDriver restarted() throws Exception;

    Path dataDir();

    @Override
    default void close() throws Exception {}
}
