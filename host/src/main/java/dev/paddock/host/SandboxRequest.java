package dev.paddock.host;

import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a client asks for when creating a sandbox. Null fields take the host's defaults: the default driver, the
 * host system directories as root, default limits, no network, the configured lifetime and idle policy, no
 * credentials, and no template (a plain sandbox). {@code template} names a {@link SandboxTemplate} registered on the
 * host, which reshapes the request before anything else reads it; {@code templateOptions} are that template's own
 * settings (such as the browser's {@code allow_evaluate}). Start from {@link #defaults()} and use the withers.
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
        List<CredentialBinding> credentials,
        String template,
        Map<String, String> templateOptions) {

    public SandboxRequest {
        templateOptions = templateOptions == null ? Map.of() : Map.copyOf(templateOptions);
    }

    public SandboxRequest(String driver, String image, boolean writableRootfs, Limits limits, Map<String, String> env,
                          NetworkPolicy network, Duration timeout, Duration idleSuspendAfter, Duration idleTerminateAfter) {
        this(driver, image, writableRootfs, limits, env, network, timeout, idleSuspendAfter, idleTerminateAfter, List.of(), null, null);
    }

    public static SandboxRequest defaults() {
        return new SandboxRequest(null, null, false, null, null, null, null, null, null);
    }

    public SandboxRequest withDriver(String d) {
        return new SandboxRequest(d, image, writableRootfs, limits, env, network, timeout, idleSuspendAfter, idleTerminateAfter, credentials, template, templateOptions);
    }

    public SandboxRequest withLimits(Limits l) {
        return new SandboxRequest(driver, image, writableRootfs, l, env, network, timeout, idleSuspendAfter, idleTerminateAfter, credentials, template, templateOptions);
    }

    public SandboxRequest withEnv(Map<String, String> e) {
        return new SandboxRequest(driver, image, writableRootfs, limits, e, network, timeout, idleSuspendAfter, idleTerminateAfter, credentials, template, templateOptions);
    }

    public SandboxRequest withNetwork(NetworkPolicy n) {
        return new SandboxRequest(driver, image, writableRootfs, limits, env, n, timeout, idleSuspendAfter, idleTerminateAfter, credentials, template, templateOptions);
    }

    public SandboxRequest withTimeout(Duration t) {
        return new SandboxRequest(driver, image, writableRootfs, limits, env, network, t, idleSuspendAfter, idleTerminateAfter, credentials, template, templateOptions);
    }

    /** The idle policy: suspend after {@code suspendAfter} without a call, terminate after a further {@code terminateAfter}. */
    public SandboxRequest withIdle(Duration suspendAfter, Duration terminateAfter) {
        return new SandboxRequest(driver, image, writableRootfs, limits, env, network, timeout, suspendAfter, terminateAfter, credentials, template, templateOptions);
    }

    public SandboxRequest withCredentials(List<CredentialBinding> c) {
        return new SandboxRequest(driver, image, writableRootfs, limits, env, network, timeout, idleSuspendAfter, idleTerminateAfter, c, template, templateOptions);
    }

    public SandboxRequest withTemplate(String name) {
        return withTemplate(name, templateOptions);
    }

    public SandboxRequest withTemplate(String name, Map<String, String> options) {
        return new SandboxRequest(driver, image, writableRootfs, limits, env, network, timeout, idleSuspendAfter, idleTerminateAfter, credentials, name, options);
    }
}
