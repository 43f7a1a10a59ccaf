package dev.paddock.server.routes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Instant;

/**
 * Snapshots: checkpoints named within the tenant ({@code POST /v1/snapshots} from a sandbox, list, read, delete),
 * which {@code POST /v1/sandboxes {"from_snapshot": NAME}} starts new sandboxes from.
 */
public final class SnapshotRoutes {
    private static final String SNAPSHOTS = "/v1/snapshots";
    private final RuntimeHost host;
    private final Bodies bodies;

    /** The body of {@code POST /v1/snapshots}: the sandbox, the name, and {@code type} workspace_tar (default) or memory. */
    public record SnapshotBody(String sandboxId, String name, String type) {}

    /** A snapshot on the wire. */
    public record SnapshotView(String type, String name, String checkpointId, String sandboxId, String kind, long sizeBytes,
                               String sha256, Instant createdAt) {
        static SnapshotView of(CheckpointRecord c) {
            return new SnapshotView("snapshot", c.name(), c.id(), c.sandboxId(), c.kind(), c.sizeBytes(), c.sha256(), c.createdAt());
        }
    }

    public SnapshotRoutes(RuntimeHost host, Bodies bodies) {
        this.host = host;
        this.bodies = bodies;
    }

    public void register(RoutesConfig r) {
        r.post(SNAPSHOTS, this::create);
        r.get(SNAPSHOTS, ctx -> ctx.json(Views.ListPage.of(host.snapshots(Auth.principal(ctx), Params.page(ctx, "cp")), SnapshotView::of)));
        r.get(SNAPSHOTS + "/{name}", ctx -> ctx.json(SnapshotView.of(host.snapshot(Auth.principal(ctx), ctx.pathParam("name")))));
        r.delete(SNAPSHOTS + "/{name}", ctx -> {
            host.deleteSnapshot(Auth.principal(ctx), ctx.pathParam("name"));
            ctx.status(204);
        });
    }

    private void create(Context ctx) {
        SnapshotBody body = bodies.json(ctx, SnapshotBody.class);
        if (body.sandboxId() == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'sandbox_id' is required: the sandbox to snapshot");
        if (body.name() == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'name' is required: the snapshot's name in your tenant");
        CheckpointRecord cp = host.snapshot(Auth.principal(ctx), body.sandboxId(), body.name(), body.type());
        ctx.status(201).json(SnapshotView.of(cp));
    }
}
