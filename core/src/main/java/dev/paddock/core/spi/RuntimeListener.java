package dev.paddock.core.spi;

/**
 * What a driver tells the host about a sandbox's runtime, for drivers whose runtime can go away and come back
 * without the sandbox ending (see {@link SandboxDriver#watchRuntimes}). {@code detail} is a short machine word
 * (e.g. {@code tab_closed}, {@code heartbeat_timeout}) or a runtime id; never a secret.
 */
public interface RuntimeListener {
    /** The sandbox's runtime is gone: operations fail until it comes back. */
    void runtimeLost(String sandboxId, String detail);

    /** The sandbox has a runtime again (the same one reconnected, or another one adopted it). */
    void runtimeRestored(String sandboxId, String detail);
}
