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

    @Override
    default void close() {}
}
