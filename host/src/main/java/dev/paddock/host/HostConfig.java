package dev.paddock.host;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Host settings. {@code defaultTimeout} is a sandbox's lifetime when the request names none (null: unlimited);
 * {@code maxTimeout} caps what a request may ask; {@code operationTimeout} bounds every driver call that is not
 * an exec (create, suspend, resume, terminate, checkpoint). {@code warmPoolSize} sandboxes of the default driver are
 * kept started in advance, so a create with default settings is a claim instead of a start (0: no pool).
 * {@code defaultDiskBytes} is the disk limit of a sandbox whose request names none, on drivers that enforce disk
 * limits, and {@code maxDiskBytes} caps what a request may ask; {@code maxCheckpointBytes} caps one checkpoint
 * archive and {@code tenantStorageBytes} the checkpoints of one tenant together (0 everywhere: no limit).
 * {@code checkpointDir} is where checkpoint archives are kept (null: {@code <data-dir>/checkpoints}); several nodes
 * may share one (a shared filesystem mounted at the same path), so any of them can read every archive in it.
 */
public record HostConfig(
        Path dataDir,
        String defaultDriver,
        Duration defaultTimeout,
        Duration maxTimeout,
        Duration defaultIdleSuspendAfter,
        Duration defaultIdleTerminateAfter,
        Duration operationTimeout,
        Duration sweepInterval,
        int warmPoolSize,
        long defaultDiskBytes,
        long maxDiskBytes,
        long maxCheckpointBytes,
        long tenantStorageBytes,
        Path checkpointDir) {

    public HostConfig {
        if (warmPoolSize < 0) throw new IllegalArgumentException("warmPoolSize must not be negative");
        if (defaultDiskBytes < 0 || maxDiskBytes < 0 || maxCheckpointBytes < 0 || tenantStorageBytes < 0) {
            throw new IllegalArgumentException("disk and storage limits must not be negative");
        }
        if (maxDiskBytes > 0 && defaultDiskBytes > maxDiskBytes) {
            throw new IllegalArgumentException("the default disk limit must not exceed the maximum");
        }
    }

    public HostConfig(Path dataDir, String defaultDriver, Duration defaultTimeout, Duration maxTimeout, Duration defaultIdleSuspendAfter,
                      Duration defaultIdleTerminateAfter, Duration operationTimeout, Duration sweepInterval, int warmPoolSize,
                      long defaultDiskBytes, long maxDiskBytes, long maxCheckpointBytes, long tenantStorageBytes) {
        this(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout,
                sweepInterval, warmPoolSize, defaultDiskBytes, maxDiskBytes, maxCheckpointBytes, tenantStorageBytes, null);
    }

    public HostConfig(Path dataDir, String defaultDriver, Duration defaultTimeout, Duration maxTimeout, Duration defaultIdleSuspendAfter,
                      Duration defaultIdleTerminateAfter, Duration operationTimeout, Duration sweepInterval, int warmPoolSize) {
        this(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout,
                sweepInterval, warmPoolSize, 0, 0, 0, 0);
    }

    public static HostConfig defaults(Path dataDir) {
        return new HostConfig(dataDir, "bwrap", Duration.ofHours(1), Duration.ofDays(7), null, null,
                Duration.ofSeconds(60), Duration.ofSeconds(5), 0);
    }

    public Path checkpointsDir() {
        return checkpointDir != null ? checkpointDir : dataDir.resolve("checkpoints");
    }

    public HostConfig withDefaultDriver(String driver) {
        return new HostConfig(dataDir, driver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout,
                sweepInterval, warmPoolSize, defaultDiskBytes, maxDiskBytes, maxCheckpointBytes, tenantStorageBytes, checkpointDir);
    }

    public HostConfig withSweepInterval(Duration d) {
        return new HostConfig(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout,
                d, warmPoolSize, defaultDiskBytes, maxDiskBytes, maxCheckpointBytes, tenantStorageBytes, checkpointDir);
    }

    public HostConfig withWarmPool(int size) {
        return new HostConfig(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout,
                sweepInterval, size, defaultDiskBytes, maxDiskBytes, maxCheckpointBytes, tenantStorageBytes, checkpointDir);
    }

    public HostConfig withDisk(long defaultBytes, long maxBytes) {
        return new HostConfig(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout,
                sweepInterval, warmPoolSize, defaultBytes, maxBytes, maxCheckpointBytes, tenantStorageBytes, checkpointDir);
    }

    public HostConfig withCheckpointStorage(long maxCheckpoint, long perTenant) {
        return new HostConfig(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout,
                sweepInterval, warmPoolSize, defaultDiskBytes, maxDiskBytes, maxCheckpoint, perTenant, checkpointDir);
    }

    /** Checkpoint archives in {@code dir} (null: the data directory's {@code checkpoints/}). */
    public HostConfig withCheckpointDir(Path dir) {
        return new HostConfig(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout,
                sweepInterval, warmPoolSize, defaultDiskBytes, maxDiskBytes, maxCheckpointBytes, tenantStorageBytes, dir);
    }
}
