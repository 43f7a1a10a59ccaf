package dev.paddock.server.routes;

import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.http.Streams;
import dev.paddock.server.wire.SandboxView;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;

/** Checkpoints (workspace archives, and process memory where the driver can): create, list, download, restore, delete. */
public final class CheckpointRoutes {
    private static final String CHECKPOINTS = SandboxRoutes.SANDBOX + "/checkpoints";
    private final RuntimeHost host;
    private final Bodies bodies;

    /** The body of POST .../checkpoints, which may be left out: {@code type} is workspace_tar (the default) or memory. */
    public record CheckpointBody(String type) {}

    public CheckpointRoutes(RuntimeHost host, Bodies bodies) {
        this.host = host;
        this.bodies = bodies;
    }

    public void register(RoutesConfig r) {
        r.post(CHECKPOINTS, ctx -> {
            CheckpointBody body = bodies.jsonOrNull(ctx, CheckpointBody.class);
            String type = body == null ? null : body.type();
            ctx.status(201).json(Views.Checkpoint.of(host.checkpoint(Auth.principal(ctx), SandboxRoutes.id(ctx), type)));
        });
        r.get(CHECKPOINTS, ctx -> {
            var page = Params.page(ctx, "cp");
            ctx.json(Views.ListPage.of(host.checkpoints(Auth.principal(ctx), SandboxRoutes.id(ctx), page), Views.Checkpoint::of));
        });
        r.post(CHECKPOINTS + "/{cp}/restore", ctx -> {
            String id = SandboxRoutes.id(ctx);
            String cp = Params.pathId(ctx, "cp", "cp", "checkpoint id");
            bodies.none(ctx);
            ctx.json(SandboxView.of(host.restore(Auth.principal(ctx), id, cp)));
        });
        r.delete(CHECKPOINTS + "/{cp}", ctx -> {
            String id = SandboxRoutes.id(ctx);
            String cp = Params.pathId(ctx, "cp", "cp", "checkpoint id");
            host.deleteCheckpoint(Auth.principal(ctx), id, cp);
            ctx.status(204);
        });
        r.get("/v1/checkpoints/{cp}/archive", this::archive);
    }

    private void archive(Context ctx) throws IOException {
        String cp = Params.pathId(ctx, "cp", "cp", "checkpoint id");
        Streams.copy(ctx, host.checkpointData(Auth.principal(ctx), cp), "application/x-tar");
    }
}
