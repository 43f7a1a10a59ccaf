package dev.paddock.host;

/** Who is calling: the tenant whose resources they may see, and whether they may manage API keys. */
public record Principal(String tenantId, String keyId, boolean admin) {}
