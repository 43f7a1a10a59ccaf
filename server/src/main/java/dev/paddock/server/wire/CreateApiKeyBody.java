package dev.paddock.server.wire;

/** Body of {@code POST /v1/api_keys}. */
public record CreateApiKeyBody(String name, String tenantId, Boolean admin) {}
