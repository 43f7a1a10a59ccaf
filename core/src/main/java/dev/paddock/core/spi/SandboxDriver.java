package dev.paddock.core.spi;

import dev.paddock.core.conformance.Conformance;
import java.util.List;
import java.util.Optional;

/** A backend that can run sandboxes. Drivers depend on core only; the host composes them. */
public interface SandboxDriver extends AutoCloseable {
    /** Short stable id, e.g. {@code bwrap}. */
    String id();

    /** The machine-readable claims the conformance kit proves. */
    Conformance conformance();

    /** Why this driver cannot run on this host (see {@link UnavailableDriver}); empty when it can. */
    default Optional<String> unavailableReason() {
        return Optional.empty();
    }

    /**
     * The limits a sandbox of this driver gets when its request names {@code requested} (null: none named; a field
     * the request left out holds this method's answer for null). A driver whose backend cannot enforce a limit
     * refuses it here, before anything is recorded, with an invalid-request error whose code names the limit and
     * whose message says what the backend has.
     */
    default Limits limits(Limits requested) {
        return requested == null ? Limits.DEFAULT : requested;
    }

    /**
     * Lets the host hear when a sandbox's runtime goes away or comes back while the sandbox itself lives on (a
     * browser tab closed and reopened). Drivers whose sandboxes cannot lose their runtime ignore it. Called at
     * most once, before the host starts; the driver never calls the listener on a thread that serves a sandbox's
     * operations.
     */
    default void watchRuntimes(RuntimeListener listener) {}

    /** Creates and starts a sandbox. The fence is recorded with it so a later host can tell who owned it. */
    Sandbox create(SandboxSpec spec, Fence fence);

    /** Re-attaches to a sandbox that still runs after a host restart; empty when it is gone. */
    Optional<Sandbox> attach(SandboxRef ref);

    /** Every sandbox that exists on the backend, for orphan reaping. */
    List<SandboxRef> list();

    /** Releases whatever is left of a sandbox that cannot be attached (processes, cgroups); keeps its workspace. */
    void destroy(SandboxRef ref);

    /** The durable workspace of a sandbox, also after it ended; empty where the driver keeps none on the host. */
    Optional<Workspace> workspace(SandboxRef ref);

    /** The sandbox's {@code /mnt/session/outputs}, also after it ended; empty where the driver keeps none on the host. */
    default Optional<Workspace> outputs(SandboxRef ref) {
        return Optional.empty();
    }

    /**
     * Removes an ended sandbox's files (workspace, outputs and whatever holds them) from the host for good
     * (idempotent). By default both are emptied.
     */
    default void purge(SandboxRef ref) {
        workspace(ref).ifPresent(Workspace::clear);
        try {
            outputs(ref).ifPresent(Workspace::clear);
        } catch (UnsupportedCapabilityException noOutputs) {
            // nothing kept
        }
    }

    /** Process-memory checkpoints, where the driver's conformance record claims the kind {@value MemoryCheckpoints#KIND}. */
    default Optional<MemoryCheckpoints> memoryCheckpoints() {
        return Optional.empty();
    }

    @Override
    default void close() {}
}
