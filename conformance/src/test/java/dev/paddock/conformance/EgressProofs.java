package dev.paddock.conformance;

import dev.paddock.core.spi.Sandbox;
import java.util.Map;

/**
 * Tests that prove a driver's {@code enforced} credential egress: each must show that a direct connection from
 * inside the sandbox, bypassing the egress proxy, fails. A driver claiming {@code enforced} without a proof here
 * fails the kit.
 */
final class EgressProofs {
    private EgressProofs() {}

    @FunctionalInterface
    interface BypassProof {
        /** Throws an AssertionError when the sandbox could reach the network around the proxy. */
        void prove(Sandbox sandbox) throws Exception;
    }

    /** Driver id → its bypass proof. None yet: no driver claims enforced egress. */
    static final Map<String, BypassProof> BY_DRIVER = Map.of();
}
