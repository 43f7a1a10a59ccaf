package dev.paddock.server.routes.agents;

import dev.paddock.agents.SessionResourceService;
import dev.paddock.server.http.Auth;
import io.javalin.config.RoutesConfig;

/** {@code /v1/sessions/{session_id}/resources}: list, add, retrieve, update (a repository's token) and delete. */
final class SessionResourceRoutes {
    static final String RESOURCES = SessionRoutes.SESSION + "/resources";
    static final String RESOURCE = RESOURCES + "/{resource_id}";
    private final SessionResourceService resources;
    private final AgentBodies bodies;

    SessionResourceRoutes(SessionResourceService resources, AgentBodies bodies) {
        this.resources = resources;
        this.bodies = bodies;
    }

    void register(RoutesConfig r) {
        r.get(RESOURCES, ctx -> AgentBodies.list(ctx, resources.list(Auth.principal(ctx), ctx.pathParam("session_id"), AgentBodies.page(ctx))));
        r.post(RESOURCES, ctx -> ctx.json(resources.add(Auth.principal(ctx), ctx.pathParam("session_id"), bodies.json(ctx))));
        r.get(RESOURCE, ctx -> ctx.json(resources.get(Auth.principal(ctx), ctx.pathParam("session_id"), ctx.pathParam("resource_id"))));
        r.post(RESOURCE, ctx -> ctx.json(resources.update(Auth.principal(ctx), ctx.pathParam("session_id"), ctx.pathParam("resource_id"),
                bodies.json(ctx))));
        r.delete(RESOURCE, ctx -> ctx.json(resources.delete(Auth.principal(ctx), ctx.pathParam("session_id"), ctx.pathParam("resource_id"))));
    }
}
