package dev.paddock.host;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Host settings. {@code defaultTimeout} is a sandbox's lifetime when the request names none (null: unlimited);
 * {@code maxTimeout} caps what a request may ask; {@code operationTimeout} bounds every driver call that is not
 * an exec (create, suspend, resume, terminate, checkpoint). {@code warmPoolSize} sandboxes of the default driver are
 * kept started in advance, so a create with default settings is a claim instead of a start (0: no pool).
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
        int warmPoolSize) {

    public HostConfig {
        if (warmPoolSize < 0) throw new IllegalArgumentException("warmPoolSize must not be negative");
    }

    public static HostConfig defaults(Path dataDir) {
        return new HostConfig(dataDir, "bwrap", Duration.ofHours(1), Duration.ofDays(7), null, null,
                Duration.ofSeconds(60), Duration.ofSeconds(5), 0);
    }

    public Path checkpointsDir() {
        return dataDir.resolve("checkpoints");
    }

    public HostConfig withDefaultDriver(String driver) {
        return new HostConfig(dataDir, driver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout, sweepInterval, warmPoolSize);
    }

    public HostConfig withSweepInterval(Duration d) {
        return new HostConfig(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout, d, warmPoolSize);
    }

    public HostConfig withWarmPool(int size) {
        return new HostConfig(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout, sweepInterval, size);
    }
}
