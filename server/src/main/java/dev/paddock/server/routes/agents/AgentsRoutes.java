package dev.paddock.server.routes.agents;

import dev.paddock.agents.ManagedAgents;
import dev.paddock.access.Principal;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Bodies;
import io.javalin.config.RoutesConfig;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The Managed Agents API under {@code /v1}: agents, environments (and their keys and work queue), sessions and
 * their events, in the shapes of the official SDKs. The {@code anthropic-beta} header is accepted and ignored.
 */
public final class AgentsRoutes {
    private final ManagedAgents agents;
    private final Bodies bodies;
    private final ApiJson json;

    public AgentsRoutes(ManagedAgents agents, Bodies bodies, ApiJson json) {
        this.agents = agents;
        this.bodies = bodies;
        this.json = json;
    }

    /**
     * Environment keys authenticate only where a worker needs them: its environment's work queue and sessions.
     * Everywhere else they are unknown keys.
     */
    public static BiFunction<String, String, Optional<Principal>> environmentKeys(ManagedAgents agents) {
        return (path, key) -> path.startsWith("/v1/sessions/") || path.startsWith("/v1/environments/")
                ? agents.environments().authenticate(key)
                : Optional.empty();
    }

    public void register(RoutesConfig r) {
        AgentBodies b = new AgentBodies(bodies);
        new AgentRoutes(agents.agents(), b).register(r);
        new EnvironmentRoutes(agents.environments(), b).register(r);
        new SessionRoutes(agents.sessions(), b).register(r);
        new SessionEventRoutes(agents.sessions(), agents.intake(), agents.events(), b, json).register(r);
        new WorkRoutes(agents.environments(), agents.work(), b, json).register(r);
        // Conflicts and lost leases are final answers: the SDKs must not retry them.
        r.after(ctx -> {
            int status = ctx.statusCode();
            if (status == 409 || status == 412) ctx.header("x-should-retry", "false");
        });
    }
}
