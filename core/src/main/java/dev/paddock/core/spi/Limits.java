package dev.paddock.core.spi;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/**
 * Resource limits of one sandbox. {@code cpus} is a fraction of cores (1.5 = one and a half cores).
 * {@code diskBytes} bounds what the sandbox can store in {@code /workspace} and its outputs together (0: none asked;
 * the host fills in its default where the driver enforces disk limits).
 */
public record Limits(long memoryBytes, int pids, double cpus, long diskBytes) {
    public static final Limits DEFAULT = new Limits(512L << 20, 256, 1.0);
    /** Below this an ext4 filesystem has hardly room for its own metadata. */
    public static final long MIN_DISK_BYTES = 32L << 20;

    public Limits {
        if (memoryBytes < (16L << 20)) throw new IllegalArgumentException("memory must be at least 16 MiB");
        if (pids < 8) throw new IllegalArgumentException("pids must be at least 8");
        if (!(cpus > 0)) throw new IllegalArgumentException("cpus must be greater than 0");
        if (diskBytes != 0 && diskBytes < MIN_DISK_BYTES) throw new IllegalArgumentException("disk must be at least 32 MiB");
    }

    public Limits(long memoryBytes, int pids, double cpus) {
        this(memoryBytes, pids, cpus, 0);
    }

    public Limits withDisk(long bytes) {
        return new Limits(memoryBytes, pids, cpus, bytes);
    }

    /**
     * These limits, where {@code host} has the cpus they ask for; else {@code cpus_limit_unavailable}, since a quota
     * above the host's cpus would not throttle at all.
     */
    public Limits requireCpusWithin(int available, String host) {
        if (cpus > available) {
            throw new PaddockException(ErrorCode.CPUS_LIMIT_UNAVAILABLE, "limits.cpus " + cpus + " exceeds the " + available + " CPUs of " + host);
        }
        return this;
    }

    /** {@link #requireCpusWithin} the cpus of the host this process runs on (a driver whose sandboxes run here). */
    public Limits requireCpusOfThisHost() {
        return requireCpusWithin(Runtime.getRuntime().availableProcessors(), "this host");
    }
}
