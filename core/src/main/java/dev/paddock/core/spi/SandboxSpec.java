package dev.paddock.core.spi;

import java.util.List;
import java.util.Map;

/**
 * What to create. {@code image} is null for the host's system directories (read-only) or the name of an image
 * known to the driver; {@code writableRootfs} asks for a per-sandbox writable overlay over that root.
 * {@code credentials} are the vault secrets the egress proxy may place on requests; {@code egress} is set by the
 * host when the network policy lets the sandbox out (null: no way out at all). {@code template} names the kind of
 * sandbox the request asked for (such as {@code browser}), null for a plain one.
 */
public record SandboxSpec(
        String sandboxId,
        String tenantId,
        String image,
        boolean writableRootfs,
        Limits limits,
        Map<String, String> env,
        NetworkPolicy network,
        List<CredentialBinding> credentials,
        EgressAttachment egress,
        String template) {

    public SandboxSpec {
        if (sandboxId == null) throw new IllegalArgumentException("sandboxId is required");
        if (tenantId == null) throw new IllegalArgumentException("tenantId is required");
        limits = limits == null ? Limits.DEFAULT : limits;
        env = env == null ? Map.of() : Map.copyOf(env);
        network = network == null ? NetworkPolicy.NONE : network;
        credentials = credentials == null ? List.of() : List.copyOf(credentials);
    }

    public SandboxSpec(String sandboxId, String tenantId, String image, boolean writableRootfs, Limits limits,
                       Map<String, String> env, NetworkPolicy network) {
        this(sandboxId, tenantId, image, writableRootfs, limits, env, network, List.of(), null, null);
    }

    public SandboxSpec(String sandboxId, String tenantId, String image, boolean writableRootfs, Limits limits,
                       Map<String, String> env, NetworkPolicy network, List<CredentialBinding> credentials, EgressAttachment egress) {
        this(sandboxId, tenantId, image, writableRootfs, limits, env, network, credentials, egress, null);
    }

    public SandboxSpec withEgress(EgressAttachment attachment) {
        return new SandboxSpec(sandboxId, tenantId, image, writableRootfs, limits, env, network, credentials, attachment, template);
    }

    public static SandboxSpec defaults(String sandboxId, String tenantId) {
        return new SandboxSpec(sandboxId, tenantId, null, false, Limits.DEFAULT, Map.of(), NetworkPolicy.NONE);
    }
}
