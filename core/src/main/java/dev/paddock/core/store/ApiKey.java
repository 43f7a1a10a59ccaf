package dev.paddock.core.store;

import java.time.Instant;

/** An API key as stored: only the hash of the secret is kept; {@code prefix} helps a user recognise it. */
public record ApiKey(String id, String tenantId, String name, String prefix, String secretHash, boolean admin, Instant createdAt, Instant revokedAt) {}
