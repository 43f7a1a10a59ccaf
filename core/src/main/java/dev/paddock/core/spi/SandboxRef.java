package dev.paddock.core.spi;

/** Enough to find a sandbox on its backend again after a host restart. {@code handle} is driver-specific. */
public record SandboxRef(String sandboxId, String driver, String handle) {}
