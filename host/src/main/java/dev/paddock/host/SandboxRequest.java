package dev.paddock.host;

import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a client asks for when creating a sandbox. Null fields take the host's defaults: the default driver, the
 * host system directories as root, default limits, no network, the configured lifetime and idle policy, and no
 * credentials.
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
        Duration idleTerminateAfter,
        List<CredentialBinding> credentials) {

    public SandboxRequest(String driver, String image, boolean writableRootfs, Limits limits, Map<String, String> env,
                          NetworkPolicy network, Duration timeout, Duration idleSuspendAfter, Duration idleTerminateAfter) {
        this(driver, image, writableRootfs, limits, env, network, timeout, idleSuspendAfter, idleTerminateAfter, List.of());
    }

    public SandboxRequest withDriver(String d) {
        return new SandboxRequest(d, image, writableRootfs, limits, env, network, timeout, idleSuspendAfter, idleTerminateAfter, credentials);
    }

    public SandboxRequest withLimits(Limits l) {
        return new SandboxRequest(driver, image, writableRootfs, l, env, network, timeout, idleSuspendAfter, idleTerminateAfter, credentials);
    }

    public static SandboxRequest defaults() {
        return new SandboxRequest(null, null, false, null, null, null, null, null, null);
    }
}
