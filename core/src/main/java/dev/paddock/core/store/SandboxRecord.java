package dev.paddock.core.store;

import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import java.time.Duration;
import java.time.Instant;

/**
 * The durable record of a sandbox. {@code timeout} is its whole lifetime (null: none); {@code idleSuspendAfter}
 * and {@code idleTerminateAfter} drive the idle policy (null: off). {@code handle} is the driver's handle for
 * re-attaching after a restart.
 */
public record SandboxRecord(
        String id,
        String tenantId,
        String driver,
        SandboxState state,
        SandboxSpec spec,
        Fence fence,
        String handle,
        Duration timeout,
        Duration idleSuspendAfter,
        Duration idleTerminateAfter,
        Instant createdAt,
        Instant updatedAt,
        Instant lastActivityAt,
        String stateReason) {

    public SandboxRecord withState(SandboxState s, String reason, Instant at) {
        return new SandboxRecord(id, tenantId, driver, s, spec, fence, handle, timeout, idleSuspendAfter,
                idleTerminateAfter, createdAt, at, lastActivityAt, reason);
    }

    public Instant expiresAt() {
        return timeout == null ? null : createdAt.plus(timeout);
    }
}
