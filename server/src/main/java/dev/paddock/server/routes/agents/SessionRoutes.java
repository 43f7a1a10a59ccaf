package dev.paddock.server.routes.agents;

import dev.paddock.agents.SessionService;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;

/** {@code /v1/sessions}: create, retrieve, list, update, archive, delete. */
final class SessionRoutes {
    static final String SESSION = "/v1/sessions/{session_id}";
    private final SessionService sessions;
    private final AgentBodies bodies;

    SessionRoutes(SessionService sessions, AgentBodies bodies) {
        this.sessions = sessions;
        this.bodies = bodies;
    }

    void register(RoutesConfig r) {
        r.post("/v1/sessions", ctx -> ctx.json(sessions.create(Auth.principal(ctx), bodies.json(ctx)).toWire()));
        r.get("/v1/sessions", ctx -> {
            SessionService.Query query = new SessionService.Query(ctx.queryParam("agent_id"), AgentBodies.many(ctx, "statuses"),
                    Params.bool(ctx, "include_archived", false), !"asc".equals(Params.optional(ctx, "order", "desc")));
            AgentBodies.list(ctx, sessions.list(Auth.principal(ctx), AgentBodies.page(ctx), query));
        });
        r.get(SESSION, ctx -> ctx.json(sessions.get(Auth.principal(ctx), ctx.pathParam("session_id")).toWire()));
        r.post(SESSION, ctx -> ctx.json(sessions.update(Auth.principal(ctx), ctx.pathParam("session_id"), bodies.json(ctx)).toWire()));
        r.post(SESSION + "/archive", ctx -> {
            bodies.none(ctx);
            ctx.json(sessions.archive(Auth.principal(ctx), ctx.pathParam("session_id")).toWire());
        });
        r.delete(SESSION, ctx -> ctx.json(sessions.delete(Auth.principal(ctx), ctx.pathParam("session_id"))));
    }
}
