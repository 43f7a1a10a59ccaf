package dev.paddock.driver.kubernetes;

import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import io.fabric8.kubernetes.api.model.Quantity;

/**
 * A warm pool's shape ({@code kubernetes_warm_pool_*}): {@code size} pods of {@code image} with {@code cpus},
 * {@code memoryBytes} and {@code diskBytes} (the server's {@code default_disk}; 0: none) as their limits, kept running
 * by agent-sandbox's {@code SandboxWarmPool}. A create whose shape is this one takes a pod from the pool; any other is
 * made as without a pool.
 */
public record WarmPoolShape(int size, String image, double cpus, long memoryBytes, long diskBytes) {
    public static final int MAX_SIZE = 1000;

    public WarmPoolShape {
        if (size < 1 || size > MAX_SIZE) throw new IllegalArgumentException("kubernetes_warm_pool_size must be 0 (no pool) to " + MAX_SIZE + ", got " + size);
        if (image == null || image.isBlank()) throw new IllegalArgumentException("a warm pool needs an image (kubernetes_image)");
        if (!(cpus > 0) || cpus > 1024) throw new IllegalArgumentException("kubernetes_warm_pool_cpus must be a number of CPUs above 0, got " + cpus);
        if (memoryBytes < (16L << 20)) throw new IllegalArgumentException("kubernetes_warm_pool_memory must be at least 16Mi, got " + memoryBytes + " bytes");
        if (diskBytes < 0) throw new IllegalArgumentException("a warm pool's disk must be 0 (none) or more bytes, got " + diskBytes);
    }

    /** The limits of the pool's pods, and of the creates they serve. */
    Limits limits() {
        return new Limits(memoryBytes, Limits.DEFAULT.pids(), cpus, diskBytes);
    }

    /**
     * The pool of the settings, or null where {@code size} is empty or 0; {@code cpus} and {@code memory} default to
     * what a create asking for no limits gets ({@link Limits#DEFAULT}), {@code memory} a Kubernetes quantity ({@code 512Mi});
     * {@code diskBytes} is what a create asking for no disk gets ({@code default_disk}).
     */
    public static WarmPoolShape parse(String size, String cpus, String memory, String image, long diskBytes) {
        int n;
        try {
            n = size == null || size.isBlank() ? 0 : Integer.parseInt(size.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("kubernetes_warm_pool_size must be a whole number (0: no pool), got '" + size + "'");
        }
        if (n == 0) {
            if (!blank(cpus) || !blank(memory)) throw new IllegalArgumentException("kubernetes_warm_pool_cpus and kubernetes_warm_pool_memory need kubernetes_warm_pool_size");
            return null;
        }
        double c;
        try {
            c = blank(cpus) ? Limits.DEFAULT.cpus() : Double.parseDouble(cpus.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("kubernetes_warm_pool_cpus must be a number of CPUs such as 1 or 0.5, got '" + cpus + "'");
        }
        long m;
        try {
            m = blank(memory) ? Limits.DEFAULT.memoryBytes() : Quantity.getAmountInBytes(new Quantity(memory.strip())).longValueExact();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("kubernetes_warm_pool_memory must be a Kubernetes quantity such as 512Mi or 1Gi, got '" + memory + "'");
        }
        return new WarmPoolShape(n, image == null || image.isBlank() ? KubernetesConfig.DEFAULT_IMAGE : image.strip(), c, m, diskBytes);
    }

    /**
     * Whether a create can take a pod of this pool: the same image and limits (disk included), no writable root, and a
     * network exactly where pool pods have one ({@code poolEgress}: their fence opens the egress proxy's port, so a
     * sandbox with network none is never served from it).
     */
    boolean fits(SandboxSpec spec, Limits limits, boolean poolEgress) {
        String wanted = spec.image() == null ? image : spec.image();
        return wanted.equals(image) && !spec.writableRootfs() && limits.diskBytes() == diskBytes
                && limits.cpus() == cpus && limits.memoryBytes() == memoryBytes && (spec.egress() != null) == poolEgress;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
