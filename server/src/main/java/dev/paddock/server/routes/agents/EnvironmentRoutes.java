package dev.paddock.server.routes.agents;

import dev.paddock.agents.EnvironmentService;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;

/** {@code /v1/environments}, and Paddock's environment keys under {@code /v1/environments/{id}/keys}. */
final class EnvironmentRoutes {
    private static final String ENV = "/v1/environments/{environment_id}";
    private final EnvironmentService environments;
    private final AgentBodies bodies;

    EnvironmentRoutes(EnvironmentService environments, AgentBodies bodies) {
        this.environments = environments;
        this.bodies = bodies;
    }

    void register(RoutesConfig r) {
        r.post("/v1/environments", ctx -> ctx.json(environments.create(Auth.principal(ctx), bodies.json(ctx)).toWire()));
        r.get("/v1/environments", ctx -> AgentBodies.list(ctx, environments.list(Auth.principal(ctx), AgentBodies.page(ctx),
                Params.bool(ctx, "include_archived", false))));
        r.get(ENV, ctx -> ctx.json(environments.get(Auth.principal(ctx), id(ctx)).toWire()));
        r.post(ENV, ctx -> ctx.json(environments.update(Auth.principal(ctx), id(ctx), bodies.json(ctx)).toWire()));
        r.delete(ENV, ctx -> ctx.json(environments.delete(Auth.principal(ctx), id(ctx))));
        r.post(ENV + "/archive", ctx -> {
            bodies.none(ctx);
            ctx.json(environments.archive(Auth.principal(ctx), id(ctx)).toWire());
        });
        r.post(ENV + "/keys", ctx -> ctx.status(201).json(environments.createKey(Auth.principal(ctx), id(ctx), bodies.json(ctx))));
        r.get(ENV + "/keys", ctx -> AgentBodies.list(ctx, environments.listKeys(Auth.principal(ctx), id(ctx), AgentBodies.page(ctx))));
        r.delete(ENV + "/keys/{key_id}", ctx -> {
            environments.revokeKey(Auth.principal(ctx), id(ctx), ctx.pathParam("key_id"));
            ctx.status(204);
        });
    }

    static String id(io.javalin.http.Context ctx) {
        return ctx.pathParam("environment_id");
    }
}
