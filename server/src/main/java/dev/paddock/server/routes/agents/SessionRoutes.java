package dev.paddock.server.routes.agents;

import dev.paddock.agents.SessionService;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;
import java.util.LinkedHashMap;
import java.util.Map;

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
        r.post("/v1/sessions", ctx -> ctx.json(sessions.create(Auth.principal(ctx), bodies.json(ctx))));
        r.get("/v1/sessions", ctx -> {
            Map<String, Object> filters = new LinkedHashMap<>();
            filters.put("agent_id", ctx.queryParam("agent_id"));
            filters.put("statuses", AgentBodies.many(ctx, "statuses"));
            filters.put("include_archived", Params.bool(ctx, "include_archived", false));
            filters.put("order", Params.optional(ctx, "order", "desc"));
            AgentBodies.list(ctx, sessions.list(Auth.principal(ctx), AgentBodies.page(ctx), filters));
        });
        r.get(SESSION, ctx -> ctx.json(sessions.get(Auth.principal(ctx), ctx.pathParam("session_id"))));
        r.post(SESSION, ctx -> ctx.json(sessions.update(Auth.principal(ctx), ctx.pathParam("session_id"), bodies.json(ctx))));
        r.post(SESSION + "/archive", ctx -> ctx.json(sessions.archive(Auth.principal(ctx), ctx.pathParam("session_id"))));
        r.delete(SESSION, ctx -> ctx.json(sessions.delete(Auth.principal(ctx), ctx.pathParam("session_id"))));
    }
}
