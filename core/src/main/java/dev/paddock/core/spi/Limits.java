package dev.paddock.core.spi;

/** Resource limits of one sandbox. {@code cpus} is a fraction of cores (1.5 = one and a half cores). */
public record Limits(long memoryBytes, int pids, double cpus) {
    public static final Limits DEFAULT = new Limits(512L << 20, 256, 1.0);

    public Limits {
        if (memoryBytes < (16L << 20)) throw new IllegalArgumentException("memory must be at least 16 MiB");
        if (pids < 8) throw new IllegalArgumentException("pids must be at least 8");
        if (!(cpus > 0)) throw new IllegalArgumentException("cpus must be greater than 0");
    }
}
