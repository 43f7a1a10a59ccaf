package dev.paddock.server.routes;

import dev.paddock.access.Principal;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.wire.CreateSandboxBody;
import dev.paddock.server.wire.SandboxBodies;
import dev.paddock.server.wire.SandboxView;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.function.Consumer;

/** Sandbox lifecycle: create, read, list, suspend, resume, delete, a running sandbox's network, and the audit events. */
public final class SandboxRoutes {
    static final String SANDBOX = "/v1/sandboxes/{id}";
    private final RuntimeHost host;
    private final Bodies bodies;
    private final Consumer<SandboxRequest> createCheck;

    /** {@code createCheck} refuses a create request (an unknown image, say) before any sandbox record exists. */
    public SandboxRoutes(RuntimeHost host, Bodies bodies, Consumer<SandboxRequest> createCheck) {
        this.host = host;
        this.bodies = bodies;
        this.createCheck = createCheck;
    }

    public void register(RoutesConfig r) {
        r.post("/v1/sandboxes", this::create);
        r.get("/v1/sandboxes", this::list);
        r.get(SANDBOX, this::get);
        r.delete(SANDBOX, this::delete);
        r.post(SANDBOX + "/suspend", ctx -> {
            bodies.none(ctx);
            ctx.json(SandboxView.of(host.suspend(Auth.principal(ctx), id(ctx))));
        });
        r.post(SANDBOX + "/resume", ctx -> {
            bodies.none(ctx);
            ctx.json(SandboxView.of(host.resume(Auth.principal(ctx), id(ctx))));
        });
        r.get(SANDBOX + "/events", this::events);
        r.patch(SANDBOX + "/network", this::changeNetwork);
        r.post(SANDBOX + "/fork", ctx -> {
            bodies.none(ctx);
            ctx.status(201).json(SandboxView.of(host.fork(Auth.principal(ctx), id(ctx))));
        });
    }

    static String id(Context ctx) {
        return Params.pathId(ctx, "id", "sbx", "sandbox id");
    }

    private void create(Context ctx) {
        CreateSandboxBody body = bodies.json(ctx, CreateSandboxBody.class);
        if (body.fromSnapshot() != null && body.fromCheckpoint() == null) {
            ctx.status(201).json(SandboxView.of(host.createFromSnapshot(Auth.principal(ctx), SandboxBodies.fromSnapshot(body))));
            return;
        }
        if (body.fromCheckpoint() != null) {
            ctx.status(201).json(SandboxView.of(host.createFromCheckpoint(Auth.principal(ctx), SandboxBodies.fromCheckpoint(body))));
            return;
        }
        var request = SandboxBodies.toRequest(body, host.defaultLimits(body.driver()));
        var labels = SandboxBodies.nodeLabels(body);
        createCheck.accept(request);
        var created = host.create(Auth.principal(ctx), request);
        host.recordPlacement(Auth.principal(ctx), created.id(), labels);
        ctx.status(201).json(SandboxView.of(created));
    }

    private void list(Context ctx) {
        var page = Params.page(ctx, "sbx");
        boolean includeTerminated = Params.bool(ctx, "include_terminated", false);
        ctx.json(Views.ListPage.of(host.list(Auth.principal(ctx), page, includeTerminated), SandboxView::of));
    }

    private void get(Context ctx) {
        Principal p = Auth.principal(ctx);
        String id = id(ctx);
        var record = host.get(p, id);
        var status = record.state().isTerminal() ? null : host.status(p, id).orElse(null);
        ctx.json(SandboxView.of(record, status));
    }

    private void delete(Context ctx) {
        // no purge parameter: as the sandbox's kind says (a browser sandbox's files go)
        Boolean purge = ctx.queryParam("purge") == null ? null : Params.bool(ctx, "purge", false);
        ctx.json(SandboxView.of(host.delete(Auth.principal(ctx), id(ctx), purge)));
    }

    private void changeNetwork(Context ctx) {
        var network = SandboxBodies.networkChange(bodies.json(ctx, CreateSandboxBody.NetworkBody.class));
        ctx.json(SandboxView.of(host.changeNetwork(Auth.principal(ctx), id(ctx), network)));
    }

    private void events(Context ctx) {
        var page = Params.page(ctx, "evt");
        ctx.json(Views.ListPage.of(host.events(Auth.principal(ctx), id(ctx), page), Views.Event::of));
    }
}
