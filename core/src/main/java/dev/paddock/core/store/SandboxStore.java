package dev.paddock.core.store;

import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Sandboxes, with fenced (compare-and-set) updates. Every update names the fence it holds. */
public interface SandboxStore {
    void insert(SandboxRecord record);

    Optional<SandboxRecord> find(String id);

    /** A tenant's sandboxes, newest first; terminal ones only when {@code includeEnded}. */
    Page<SandboxRecord> list(String tenantId, PageRequest page, boolean includeEnded);

    /** Every sandbox not in a terminal state, for timers and the orphan reaper. */
    List<SandboxRecord> listActive();

    /** The active sandboxes node {@code nodeId} holds (any epoch of it): see {@link dev.paddock.core.spi.Fence#nodeId()}. */
    List<SandboxRecord> listActiveOn(String nodeId);

    /**
     * Moves the sandbox to {@code to} if it is held by {@code fence}; throws {@link dev.paddock.core.FenceLostException}
     * otherwise and {@link dev.paddock.core.PaddockException} (conflict, {@code invalid_transition}) when the state
     * machine forbids the move. Returns the updated record.
     */
    SandboxRecord transition(String id, Fence fence, SandboxState to, String reason);

    /**
     * Sets the reason of a sandbox that stays in {@code state} (e.g. a running sandbox whose runtime is gone), when
     * {@code fence} holds it, it is still in {@code state} and its reason is still {@code expectedReason} (null:
     * none). Returns the updated record, or empty when the state or reason moved on meanwhile; throws
     * {@link dev.paddock.core.FenceLostException} when another owner holds it.
     */
    Optional<SandboxRecord> replaceReason(String id, Fence fence, SandboxState state, String expectedReason, String reason);

    /** Records the driver handle (set once the backend created the sandbox). */
    void setHandle(String id, Fence fence, String handle);

    /**
     * Replaces the network policy in the sandbox's stored spec (a running sandbox whose allowlist changed), so a
     * restarted host opens its egress listener with the new one. Fenced.
     */
    void setNetwork(String id, Fence fence, NetworkPolicy network);

    /**
     * Records the node labels the sandbox's create asked for ({@code placement.node_labels}), so that a relocation
     * from a lost node asks them again. Fenced.
     */
    void setNodeLabels(String id, Fence fence, Map<String, String> labels);

    /** The node labels the sandbox's create asked for; empty when none (or none were recorded). */
    Map<String, String> nodeLabels(String id);

    /** Notes activity (exec, file access) for the idle policy. Fenced. */
    void touch(String id, Fence fence, Instant at);

    /**
     * Takes ownership: succeeds only when the stored fence is still {@code expected}; the stored fence becomes
     * {@code expected.next(newOwner)}, which is returned. Throws {@link dev.paddock.core.FenceLostException} otherwise.
     */
    Fence takeOver(String id, Fence expected, String newOwner);
}
