package dev.paddock.server.routes.egress;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.egress.SecretVault;
import dev.paddock.server.RouteContext;
import dev.paddock.server.RouteModule;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

/**
 * The tenant's vault: create, list, rotate, delete. Answers carry id, name and times, never a value; a body that
 * cannot be read is refused without quoting it, since it may hold the value.
 */
public final class SecretRoutes implements RouteModule {
    private static final String SECRET = "/v1/secrets/{id}";
    private final SecretVault vault;
    private Bodies bodies; // the server's, given at registration

    public SecretRoutes(SecretVault vault) {
        this.vault = vault;
    }

    @Override
    public void register(RouteContext context) {
        RoutesConfig r = context.routes();
        bodies = context.bodies();
        r.post("/v1/secrets", this::create);
        r.get("/v1/secrets", ctx -> ctx.json(new Views.DataList<>(vault.list(Auth.principal(ctx).tenantId()).stream().map(EgressViews.Secret::of).toList())));
        r.get(SECRET, ctx -> ctx.json(EgressViews.Secret.of(vault.get(Auth.principal(ctx).tenantId(), id(ctx)))));
        r.post(SECRET + "/rotate", this::rotate);
        r.delete(SECRET, ctx -> {
            vault.delete(Auth.principal(ctx).tenantId(), id(ctx));
            ctx.status(204);
        });
    }

    private void create(Context ctx) {
        String tenant = Auth.principal(ctx).tenantId();
        EgressViews.SecretBody b = body(ctx);
        if (b.name() == null || b.name().isBlank()) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'name' is required");
        ctx.status(201).json(EgressViews.Secret.of(vault.create(tenant, b.name(), value(b))));
    }

    private void rotate(Context ctx) {
        String tenant = Auth.principal(ctx).tenantId();
        String id = id(ctx);
        EgressViews.SecretBody b = body(ctx);
        if (b.name() != null) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'name' cannot be changed by a rotation; send only 'value'");
        ctx.json(EgressViews.Secret.of(vault.rotate(tenant, id, value(b))));
    }

    private EgressViews.SecretBody body(Context ctx) {
        try {
            return bodies.json(ctx, EgressViews.SecretBody.class);
        } catch (PaddockException e) {
            if (e.code().equals("request_too_large") || e.code().equals("unknown_field")) throw e;
            // the parser's message may quote part of the body, i.e. of the secret
            throw new PaddockException(ErrorCode.INVALID_JSON, "the body must be a JSON object {\"name\": string, \"value\": string}");
        }
    }

    private static SecretValue value(EgressViews.SecretBody b) {
        if (b.value() == null) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'value' is required: the secret as a string");
        return SecretValue.of(b.value());
    }

    private static String id(Context ctx) {
        return Params.pathId(ctx, "id", "sec", "secret id");
    }
}
