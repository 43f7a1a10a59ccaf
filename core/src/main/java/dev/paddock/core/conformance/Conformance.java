package dev.paddock.core.conformance;

import java.util.List;
import java.util.Set;

/**
 * A driver's machine-readable claims (served at GET /v1/drivers, rendered to docs/drivers.md). Every claim is
 * proven by the conformance kit: supported must work, unsupported must fail fast with a clear error.
 * Enum values go over the wire in lower case.
 */
public record Conformance(
        String driver,
        String description,
        Set<Lane> lanes,
        Lifecycle lifecycle,
        WorkspaceFacts workspace,
        Outputs outputs,
        CredentialEgress credentialEgress,
        List<String> runtimeCheckpoints,
        PortFacts portFacts) {

    public enum Lane { SUPERVISED, WORKER }

    public enum Lease { HOST_FENCED, PROVIDER_ONLY }

    public enum Support { SUPPORTED, UNSUPPORTED }

    public enum OrphanReap { HOST_MANAGED, UNAVAILABLE }

    public enum WorkspaceStrategy { DURABLE_MOUNT, RETAINED_RUNTIME, CHECKPOINT_RESTORE, EPHEMERAL }

    public enum Durability { DURABLE, BEST_EFFORT, NONE }

    public enum Enforcement { ENFORCED, ADVISORY, UNSUPPORTED }

    public record Lifecycle(Lease lease, Support suspendResume, Support hardTerminate, OrphanReap orphanReap) {}

    public record WorkspaceFacts(List<WorkspaceStrategy> strategies, Durability durability) {}

    /** How {@code /mnt/session/outputs} is collected, e.g. {@code host_directory}. */
    public record Outputs(String collection) {}

    public record CredentialEgress(Enforcement enforcement, List<String> interceptedProtocols) {}

    public record PortFacts(List<String> available, List<String> unavailable) {}

    /** The port fact of drivers that enforce {@code limits.disk} on the host's disk. */
    public static final String DISK_LIMITS = "disk_quota";

    /**
     * The port fact of drivers whose boundary lets Chromium keep its own sandbox inside (user namespaces and seccomp
     * for unprivileged processes): browser sandboxes on them run Chromium without {@code --no-sandbox}.
     */
    public static final String CHROMIUM_SANDBOX = "chromium_sandbox";

    /** The port fact of drivers that run a command on a terminal inside the sandbox ({@code Sandbox.openTerminal}). */
    public static final String TERMINAL = "terminal";

    /** The port fact of drivers that relay a connection to a port on the sandbox's loopback ({@code Sandbox.connectPort}). */
    public static final String PORT_FORWARD = "port_forward";

    public boolean supportsTerminal() {
        return portFacts.available().contains(TERMINAL);
    }

    public boolean supportsPortForward() {
        return portFacts.available().contains(PORT_FORWARD);
    }

    /**
     * The port fact of drivers whose sandbox reaches the egress proxy through a listener the host can give new rules
     * while the sandbox runs ({@code PATCH /v1/sandboxes/{id}/network}).
     */
    public static final String NETWORK_UPDATE = "network_update";

    /**
     * The port fact of drivers whose workspace is a host directory the host can watch for changes
     * ({@code GET /v1/sandboxes/{id}/files/watch}).
     */
    public static final String FILE_WATCH = "file_watch";

    public boolean supportsNetworkUpdate() {
        return portFacts.available().contains(NETWORK_UPDATE);
    }

    public boolean supportsFileWatch() {
        return portFacts.available().contains(FILE_WATCH);
    }

    public boolean keepsChromiumSandbox() {
        return portFacts.available().contains(CHROMIUM_SANDBOX);
    }

    public boolean supportsDiskLimits() {
        return portFacts.available().contains(DISK_LIMITS);
    }

    public boolean supportsSuspendResume() {
        return lifecycle.suspendResume() == Support.SUPPORTED;
    }

    public boolean supportsCheckpoint(String kind) {
        return runtimeCheckpoints.contains(kind);
    }
}
