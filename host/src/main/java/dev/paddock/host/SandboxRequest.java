package dev.paddock.host;

import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import java.time.Duration;
import java.util.Map;

/**
 * What a client asks for when creating a sandbox. Null fields take the host's defaults: the default driver, the
 * host system directories as root, default limits, no network, the configured lifetime and idle policy.
 */
public record SandboxRequest(
        String driver,
        String image,
        boolean writableRootfs,
        Limits limits,
        Map<String, String> env,
        NetworkPolicy network,
        Duration timeout,
        Duration idleSuspendAfter,
        Duration idleTerminateAfter) {

    public static SandboxRequest defaults() {
        return new SandboxRequest(null, null, false, null, null, null, null, null, null);
    }
}
