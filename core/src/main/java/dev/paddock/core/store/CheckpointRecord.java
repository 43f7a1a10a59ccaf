package dev.paddock.core.store;

import java.time.Instant;

/** A saved checkpoint of a sandbox; {@code kind} is e.g. {@code workspace_tar}. */
public record CheckpointRecord(String id, String sandboxId, String tenantId, String kind, long sizeBytes, String sha256, Instant createdAt) {}
