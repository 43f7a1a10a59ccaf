package dev.paddock.core.spi;

/** What the backend reports about a live sandbox. Negative numbers mean "not known to this driver". */
public record SandboxStatus(boolean alive, boolean frozen, long memoryBytes, long memoryLimitBytes, int pids, long oomKills, long cpuNanos) {}
