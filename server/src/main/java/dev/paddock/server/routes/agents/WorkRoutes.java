package dev.paddock.server.routes.agents;

import dev.paddock.agents.Callers;
import dev.paddock.agents.EnvironmentService;
import dev.paddock.agents.Fields;
import dev.paddock.agents.SdkErrorCodes;
import dev.paddock.agents.WorkQueue;
import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The self-hosted work queue of an environment: poll, ack, heartbeat, stop, get, update, list, stats. Reached with
 * the environment's key (a worker) or an API key of its tenant.
 */
final class WorkRoutes {
    private static final String ENV = "/v1/environments/{environment_id}/work";
    private static final String WORK = ENV + "/{work_id}";
    private static final String WORKER_ID = "anthropic-worker-id";

    private final EnvironmentService environments;
    private final WorkQueue work;
    private final AgentBodies bodies;
    private final ApiJson json;

    WorkRoutes(EnvironmentService environments, WorkQueue work, AgentBodies bodies, ApiJson json) {
        this.environments = environments;
        this.work = work;
        this.bodies = bodies;
        this.json = json;
    }

    void register(RoutesConfig r) {
        r.get(ENV + "/poll", this::poll);
        r.get(ENV + "/stats", ctx -> ctx.json(work.stats(environment(ctx))));
        r.get(ENV, ctx -> AgentBodies.list(ctx, work.list(environment(ctx), AgentBodies.page(ctx))));
        r.get(WORK, ctx -> ctx.json(work.get(environment(ctx), ctx.pathParam("work_id"))));
        r.post(WORK, ctx -> ctx.json(work.updateMetadata(environment(ctx), ctx.pathParam("work_id"), metadata(ctx))));
        r.post(WORK + "/ack", ctx -> {
            bodies.none(ctx);
            ctx.json(work.ack(environment(ctx), ctx.pathParam("work_id"), ctx.header(WORKER_ID)));
        });
        r.post(WORK + "/heartbeat", this::heartbeat);
        r.post(WORK + "/stop", ctx -> {
            String env = environment(ctx);
            Map<String, Object> body = bodies.json(ctx);
            Fields.allowOnly(body, Set.of("force"), "");
            ctx.json(work.stop(env, ctx.pathParam("work_id"), Fields.bool(body, "force", false), ctx.header(WORKER_ID)));
        });
    }

    private void poll(Context ctx) {
        Principal p = Auth.principal(ctx);
        String env = environment(ctx);
        long block = Params.longParam(ctx, "block_ms", 0, 0, 999);
        Long reclaim = ctx.queryParam("reclaim_older_than_ms") == null ? null
                : Params.longParam(ctx, "reclaim_older_than_ms", 0, 0, Long.MAX_VALUE);
        var claimed = work.poll(p.tenantId(), env, ctx.header(WORKER_ID), block, reclaim);
        if (claimed.isPresent()) ctx.json(claimed.get());
        else ctx.contentType("application/json").result("null");
    }

    private void heartbeat(Context ctx) {
        bodies.none(ctx);
        String env = environment(ctx);
        Long ttl = ctx.queryParam("desired_ttl_seconds") == null ? null : Params.longParam(ctx, "desired_ttl_seconds", 0, 1, 86_400);
        WorkQueue.Heartbeat h = work.heartbeat(env, ctx.pathParam("work_id"), ctx.queryParam("expected_last_heartbeat"), ttl, ctx.header(WORKER_ID));
        if (h.response() != null) {
            ctx.json(h.response().toWire());
            return;
        }
        ErrorCode code = ErrorCode.HEARTBEAT_PRECONDITION_FAILED;
        Map<String, Object> details = SdkErrorCodes.details(code);
        details.put("current_state", h.failedLease().toCurrentState());
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", code.type().wireName());
        error.put("code", code.wire());
        error.put("message", "the lease on this work is not the one this heartbeat expected (it lapsed, was reclaimed by another worker, "
                + "or expected_last_heartbeat is stale); stop working on it");
        error.put("details", details);
        ctx.status(code.type().httpStatus()).contentType("application/json").result(json.write(Map.of("type", "error", "error", error)));
    }

    /** A body the route takes nothing from: empty, or a JSON object without fields. */

    @SuppressWarnings("unchecked")
    private Map<String, Object> metadata(Context ctx) {
        Map<String, Object> body = bodies.json(ctx);
        Fields.allowOnly(body, Set.of("metadata"), "");
        return Fields.object(body.get("metadata"), "metadata");
    }

    /** The environment of the path, checked against the caller (an environment key reaches its own only). */
    private String environment(Context ctx) {
        Principal p = Auth.principal(ctx);
        String id = ctx.pathParam("environment_id");
        environments.get(p, id);
        if (!Callers.isEnvironmentKey(p)) return id;
        return id;
    }
}
