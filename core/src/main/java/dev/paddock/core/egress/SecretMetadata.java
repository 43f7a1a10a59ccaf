package dev.paddock.core.egress;

import java.time.Instant;

/** What may be shown about a secret: never its value. {@code version} grows by one with every rotation. */
public record SecretMetadata(String id, String tenantId, String name, Instant createdAt, Instant updatedAt, int version) {}
