package dev.paddock.host;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Host settings. {@code defaultTimeout} is a sandbox's lifetime when the request names none (null: unlimited);
 * {@code maxTimeout} caps what a request may ask; {@code operationTimeout} bounds every driver call that is not
 * an exec (create, suspend, resume, terminate, checkpoint).
 */
public record HostConfig(
        Path dataDir,
        String defaultDriver,
        Duration defaultTimeout,
        Duration maxTimeout,
        Duration defaultIdleSuspendAfter,
        Duration defaultIdleTerminateAfter,
        Duration operationTimeout,
        Duration sweepInterval) {

    public static HostConfig defaults(Path dataDir) {
        return new HostConfig(dataDir, "bwrap", Duration.ofHours(1), Duration.ofDays(7), null, null,
                Duration.ofSeconds(60), Duration.ofSeconds(5));
    }

    public Path checkpointsDir() {
        return dataDir.resolve("checkpoints");
    }

    public HostConfig withDefaultDriver(String driver) {
        return new HostConfig(dataDir, driver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout, sweepInterval);
    }

    public HostConfig withSweepInterval(Duration d) {
        return new HostConfig(dataDir, defaultDriver, defaultTimeout, maxTimeout, defaultIdleSuspendAfter, defaultIdleTerminateAfter, operationTimeout, d);
    }
}
