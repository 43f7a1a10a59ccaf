package dev.paddock.server.routes.agents;

import dev.paddock.agents.AgentService;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;

/** {@code /v1/agents}: create, retrieve (optionally at a version), list, update (new version), archive, versions. */
final class AgentRoutes {
    private static final String AGENT = "/v1/agents/{agent_id}";
    private final AgentService agents;
    private final AgentBodies bodies;

    AgentRoutes(AgentService agents, AgentBodies bodies) {
        this.agents = agents;
        this.bodies = bodies;
    }

    void register(RoutesConfig r) {
        r.post("/v1/agents", ctx -> ctx.json(agents.create(Auth.principal(ctx), bodies.json(ctx)).toWire()));
        r.get("/v1/agents", ctx -> AgentBodies.list(ctx, agents.list(Auth.principal(ctx), AgentBodies.page(ctx),
                Params.bool(ctx, "include_archived", false))));
        r.get(AGENT, ctx -> ctx.json(agents.get(Auth.principal(ctx), ctx.pathParam("agent_id"), AgentBodies.optionalInt(ctx, "version")).toWire()));
        r.post(AGENT, ctx -> ctx.json(agents.update(Auth.principal(ctx), ctx.pathParam("agent_id"), bodies.json(ctx)).toWire()));
        r.post(AGENT + "/archive", ctx -> {
            bodies.none(ctx);
            ctx.json(agents.archive(Auth.principal(ctx), ctx.pathParam("agent_id")).toWire());
        });
        r.get(AGENT + "/versions", ctx -> AgentBodies.list(ctx, agents.versions(Auth.principal(ctx), ctx.pathParam("agent_id"),
                AgentBodies.page(ctx))));
    }
}
