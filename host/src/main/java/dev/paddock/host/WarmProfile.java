package dev.paddock.host;

import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A kind of sandbox the host keeps started ahead of demand (see {@link WarmPool}), so that a create asking for it
 * is a claim instead of a start. The host has one for plain default sandboxes; a module adds its own, such as the
 * browser template with its browser already running, as its {@link SandboxTemplate#warmProfile()} (or through
 * {@link RuntimeHost#addWarmPool}) before start. A pool serves only requests of its template's kind.
 *
 * @param name     for logs
 * @param size     how many to keep ready (0: none)
 * @param template the settings pooled sandboxes start with, on the default driver; its network policy is the one
 *                 they wait with, and a claim replaces it with the request's (so it must not be {@code none} when
 *                 {@code fits} accepts other modes, and never carries credentials)
 * @param fits     whether a create request can be served by a pooled sandbox: everything the sandbox was started
 *                 with (image, limits, env) must be what the request asks for
 * @param prepare  readies a started sandbox before it waits (throwing discards it)
 * @param freezeWhileWaiting whether waiting sandboxes are frozen, and thawed at claim: for kinds that would
 *                 otherwise spend CPU while they wait
 * @param refillDelay how long after a claim the refill waits: the claimer's first commands usually follow at
 *                 once, and starting (and preparing) a sandbox beside them would take the CPU they need
 */
public record WarmProfile(String name, int size, SandboxRequest template, Predicate<SandboxRequest> fits,
                          Consumer<Sandbox> prepare, boolean freezeWhileWaiting, Duration refillDelay) {
    public WarmProfile {
        Objects.requireNonNull(name);
        Objects.requireNonNull(template);
        Objects.requireNonNull(fits);
        Objects.requireNonNull(prepare);
        Objects.requireNonNull(refillDelay);
        if (size < 0) throw new IllegalArgumentException("a warm pool size must not be negative");
        if (template.credentials() != null && !template.credentials().isEmpty()) {
            throw new IllegalArgumentException("pooled sandboxes belong to no tenant and cannot carry credentials");
        }
    }

    WarmProfile withTemplate(SandboxRequest t) {
        return new WarmProfile(name, size, t, fits, prepare, freezeWhileWaiting, refillDelay);
    }

    /** Plain sandboxes: default settings, no network. */
    static WarmProfile plain(int size) {
        return new WarmProfile("default", size, SandboxRequest.defaults(), r -> r.image() == null && !r.writableRootfs()
                && (r.limits() == null || r.limits().equals(Limits.DEFAULT))
                && (r.env() == null || r.env().isEmpty())
                && (r.network() == null || r.network().mode() == NetworkPolicy.Mode.NONE)
                && (r.credentials() == null || r.credentials().isEmpty()), s -> {}, false, Duration.ofMillis(100));
    }
}
