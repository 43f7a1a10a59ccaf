package dev.paddock.core.store;

import java.util.Optional;

public interface CheckpointStore {
    void insert(CheckpointRecord record);

    Optional<CheckpointRecord> find(String id);

    /** Newest first. */
    Page<CheckpointRecord> list(String sandboxId, PageRequest page);

    void delete(String id);

    /** The tenant's snapshot (checkpoint) of that name. */
    Optional<CheckpointRecord> findByName(String tenantId, String name);

    /** The tenant's snapshots (named checkpoints), newest first. */
    Page<CheckpointRecord> listNamed(String tenantId, PageRequest page);

    /** The bytes of every checkpoint of a tenant, for its storage quota. */
    long totalBytes(String tenantId);
}
