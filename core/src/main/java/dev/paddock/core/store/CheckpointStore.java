package dev.paddock.core.store;

import java.util.Optional;

public interface CheckpointStore {
    void insert(CheckpointRecord record);

    Optional<CheckpointRecord> find(String id);

    /** Newest first. */
    Page<CheckpointRecord> list(String sandboxId, PageRequest page);

    void delete(String id);

    /** The bytes of every checkpoint of a tenant, for its storage quota. */
    long totalBytes(String tenantId);
}
