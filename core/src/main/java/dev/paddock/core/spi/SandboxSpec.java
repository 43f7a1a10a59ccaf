package dev.paddock.core.spi;

import java.util.Map;

/**
 * What to create. {@code image} is null for the host's system directories (read-only) or the name of an image
 * known to the driver; {@code writableRootfs} asks for a per-sandbox writable overlay over that root.
 */
public record SandboxSpec(
        String sandboxId,
        String tenantId,
        String image,
        boolean writableRootfs,
        Limits limits,
        Map<String, String> env,
        NetworkPolicy network) {

    public SandboxSpec {
        if (sandboxId == null) throw new IllegalArgumentException("sandboxId is required");
        if (tenantId == null) throw new IllegalArgumentException("tenantId is required");
        limits = limits == null ? Limits.DEFAULT : limits;
        env = env == null ? Map.of() : Map.copyOf(env);
        network = network == null ? NetworkPolicy.NONE : network;
    }

    public static SandboxSpec defaults(String sandboxId, String tenantId) {
        return new SandboxSpec(sandboxId, tenantId, null, false, Limits.DEFAULT, Map.of(), NetworkPolicy.NONE);
    }
}
