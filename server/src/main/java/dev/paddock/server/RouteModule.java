package dev.paddock.server;

import dev.paddock.access.Principal;
import dev.paddock.host.SandboxRequest;
import io.javalin.config.JavalinConfig;
import java.util.Optional;

/**
 * A feature's part of the HTTP server (Javalin-plugin style): the composition root chooses the modules and hands
 * them to {@link PaddockServer}, which adds each one's routes after its own. A route a module registers is a route
 * of the server: it is authenticated, error-mapped and listed by {@link PaddockServer#routes()} like the rest.
 */
public interface RouteModule {
    /** Adds this module's routes. */
    void register(RouteContext context);

    /** What the server needs beyond routes (static files, a servlet), before any route is added. */
    default void configure(JavalinConfig config) {}

    /** Whether a request on this module's paths carries its own credential instead of an API key. */
    default boolean isPublic(String method, String path) {
        return false;
    }

    /** A caller for a credential this module issues (not an API key) presented on {@code path}; empty when it is none of its. */
    default Optional<Principal> authenticate(String path, String key) {
        return Optional.empty();
    }

    /** Refuses a sandbox create request this feature knows cannot work, before any record exists. */
    default void checkSandboxCreate(SandboxRequest request) {}

    /** Releases what the module holds for serving; called when the server stops. */
    default void close() {}
}
