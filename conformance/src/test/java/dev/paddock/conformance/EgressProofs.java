package dev.paddock.conformance;

import dev.paddock.core.spi.SandboxDriver;
import java.nio.file.Path;
import java.util.Map;

/**
 * Tests that prove a driver's {@code enforced} credential egress: each must show that a direct connection from
 * inside the sandbox, bypassing the egress proxy, fails; that a credential placeholder is replaced only on requests
 * to the rule's hosts; and that the real value cannot be found inside the sandbox. A driver claiming
 * {@code enforced} without a proof here fails the kit.
 */
final class EgressProofs {
    private EgressProofs() {}

    @FunctionalInterface
    interface BypassProof {
        /** Throws an AssertionError when a sandbox of {@code driver} (on {@code dataDir}) breaks a claim. */
        void prove(SandboxDriver driver, Path dataDir) throws Exception;
    }

    /** Driver id → its proof. */
    static final Map<String, BypassProof> BY_DRIVER = Map.of("bwrap", new ProxyOnlyEgressProof(), "docker", new ProxyOnlyEgressProof(),
            "gvisor", new ProxyOnlyEgressProof(), "kubernetes", new ProxyOnlyEgressProof());
}
