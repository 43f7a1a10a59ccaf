package dev.paddock.core.store;

import java.time.Instant;

/**
 * A saved checkpoint of a sandbox; {@code kind} is e.g. {@code workspace_tar}. {@code name} is set for a snapshot (a
 * checkpoint named within its tenant, which new sandboxes start from), null otherwise. {@code archiveDir} is the
 * directory its archive was written in (a node's own, or one several nodes share); null for an archive written
 * before it was recorded, which lies in its node's own checkpoint directory.
 */
public record CheckpointRecord(String id, String sandboxId, String tenantId, String kind, long sizeBytes, String sha256, Instant createdAt,
                               String name, String archiveDir) {
    public CheckpointRecord(String id, String sandboxId, String tenantId, String kind, long sizeBytes, String sha256, Instant createdAt,
                            String name) {
        this(id, sandboxId, tenantId, kind, sizeBytes, sha256, createdAt, name, null);
    }

    public CheckpointRecord(String id, String sandboxId, String tenantId, String kind, long sizeBytes, String sha256, Instant createdAt) {
        this(id, sandboxId, tenantId, kind, sizeBytes, sha256, createdAt, null, null);
    }
}
