package dev.paddock.server.cluster;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.NodeState;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Instant;

/**
 * The cluster's nodes, for the operator: list them, look at one, drain one (no new sandboxes are placed on it; the
 * ones it holds run on until they end, which {@code active_sandboxes} counts down) or make a drained one active again.
 * A server alone on SQLite has no nodes and says so.
 */
public final class NodeRoutes {
    private final ClusterLink link;
    private final Clock clock;
    private final Bodies bodies;

    /** {@code link} null: this server is alone on its store. */
    public NodeRoutes(ClusterLink link, Clock clock, Bodies bodies) {
        this.link = link;
        this.clock = clock;
        this.bodies = bodies;
    }

    public void register(RoutesConfig r) {
        r.get("/v1/nodes", ctx -> {
            ClusterLink l = cluster(ctx);
            Instant now = clock.instant();
            ctx.json(new Views.DataList<>(l.nodes().list().stream().map(n -> view(n, now)).toList()));
        });
        r.get("/v1/nodes/{id}", ctx -> ctx.json(view(node(ctx), clock.instant())));
        r.post("/v1/nodes/{id}/drain", ctx -> {
            bodies.none(ctx);
            ctx.json(setState(ctx, NodeState.DRAINING));
        });
        r.post("/v1/nodes/{id}/activate", ctx -> {
            bodies.none(ctx);
            ctx.json(setState(ctx, NodeState.ACTIVE));
        });
    }

    private NodeView setState(Context ctx, NodeState state) {
        NodeRecord n = node(ctx);
        if (!link.nodes().setState(n.id(), state)) {
            throw new PaddockException(ErrorCode.INVALID_STATE, "node " + n.id() + " is lost; it becomes active again when it restarts");
        }
        return view(link.nodes().find(n.id()).orElseThrow(), clock.instant());
    }

    private NodeRecord node(Context ctx) {
        ClusterLink l = cluster(ctx);
        String id = ctx.pathParam("id");
        return l.nodes().find(id).orElseThrow(() -> new PaddockException(ErrorCode.NODE_NOT_FOUND, "no node " + id + " in this cluster"));
    }

    private ClusterLink cluster(Context ctx) {
        Auth.operator(ctx, "see and manage the cluster's nodes");
        if (link == null) {
            throw new PaddockException(ErrorCode.NODES_NEED_POSTGRES, "this server runs alone on SQLite; nodes exist when several "
                    + "servers share a PostgreSQL store (store_url)");
        }
        return link;
    }

    private NodeView view(NodeRecord n, Instant now) {
        return NodeView.of(n, link.selfId(), link.store().sandboxes().listActiveOn(n.id()).size(), now);
    }
}
