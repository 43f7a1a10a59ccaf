package dev.paddock.server.routes.agents;

import dev.paddock.agents.ManagedAgents;
import dev.paddock.agents.SdkErrorCodes;
import dev.paddock.access.Principal;
import dev.paddock.server.RouteContext;
import dev.paddock.server.RouteModule;
import dev.paddock.server.http.ApiErrors;
import dev.paddock.server.http.ApiJson;
import io.javalin.config.RoutesConfig;
import java.util.List;
import java.util.Optional;

/**
 * The Managed Agents API under {@code /v1}: agents, environments (and their keys and work queue), sessions and
 * their events, vaults and their credentials, in the shapes of the official SDKs. The {@code anthropic-beta} header
 * is accepted and ignored.
 */
public final class AgentsRoutes implements RouteModule {
    private static final List<String> PATHS = List.of("/v1/agents", "/v1/environments", "/v1/sessions", "/v1/vaults");
    /** The SDKs read an error's reason from {@code error.details.error_code}. */
    private static final ApiErrors.ErrorDetails SDK_DETAILS = e -> SdkErrorCodes.details(e.errorCode());

    private final ManagedAgents agents;

    public AgentsRoutes(ManagedAgents agents) {
        this.agents = agents;
    }

    /**
     * Environment keys authenticate only where a worker needs them: its environment's work queue and sessions.
     * Everywhere else they are unknown keys.
     */
    @Override
    public Optional<Principal> authenticate(String path, String key) {
        return path.startsWith("/v1/sessions/") || path.startsWith("/v1/environments/")
                ? agents.environments().authenticate(key)
                : Optional.empty();
    }

    @Override
    public void register(RouteContext context) {
        RoutesConfig r = context.routes();
        ApiJson json = context.json();
        AgentBodies b = new AgentBodies(context.bodies());
        r.before(ctx -> {
            if (isManagedAgentsPath(ctx.path())) ctx.attribute(ApiErrors.DETAILS, SDK_DETAILS);
        });
        new AgentRoutes(agents.agents(), b).register(r);
        new EnvironmentRoutes(agents.environments(), b).register(r);
        new SessionRoutes(agents.sessions(), b).register(r);
        new SessionEventRoutes(agents.sessions(), agents.intake(), agents.events(), b, json).register(r);
        new WorkRoutes(agents.environments(), agents.work(), b, json).register(r);
        new VaultRoutes(agents.vaults(), agents.credentials(), agents.credentialValidation(), b).register(r);
        // Conflicts and lost leases are final answers: the SDKs must not retry them.
        r.after(ctx -> {
            int status = ctx.statusCode();
            if (status == 409 || status == 412) ctx.header("x-should-retry", "false");
        });
    }

    static boolean isManagedAgentsPath(String path) {
        return PATHS.stream().anyMatch(p -> path.equals(p) || path.startsWith(p + "/"));
    }
}
