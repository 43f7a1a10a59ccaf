package dev.paddock.server.routes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.access.ApiKeys;
import dev.paddock.access.Principal;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.wire.CreateApiKeyBody;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.regex.Pattern;

/**
 * API keys: the operator's admin key manages every tenant's, a tenant admin its own tenant's, and any key may revoke
 * itself (see {@link ApiKeys}). The secret of a new key is shown once, in the answer that creates it.
 */
public final class ApiKeyRoutes {
    private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private final ApiKeys keys;
    private final Bodies bodies;

    public ApiKeyRoutes(ApiKeys keys, Bodies bodies) {
        this.keys = keys;
        this.bodies = bodies;
    }

    public void register(RoutesConfig r) {
        r.post("/v1/api_keys", this::create);
        r.get("/v1/api_keys", ctx -> {
            String tenant = ctx.queryParam("tenant_id");
            if (tenant != null) requireTenant(tenant);
            ctx.json(new Views.DataList<>(keys.list(Auth.principal(ctx), tenant).stream()
                    .filter(k -> k.revokedAt() == null).map(Views.Key::of).toList()));
        });
        r.delete("/v1/api_keys/{id}", ctx -> {
            keys.revoke(Auth.principal(ctx), Params.pathId(ctx, "id", "key", "api key id"));
            ctx.status(204);
        });
    }

    private void create(Context ctx) {
        Principal caller = Auth.admin(ctx);
        CreateApiKeyBody b = bodies.json(ctx, CreateApiKeyBody.class);
        if (b.name() == null || b.name().isBlank() || b.name().length() > 100) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'name' is required: 1 to 100 characters");
        }
        if (b.name().chars().anyMatch(Character::isISOControl)) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'name' must not contain control characters");
        }
        if (b.tenantId() != null) requireTenant(b.tenantId());
        ApiKeys.Created c = keys.issue(caller, b.tenantId(), b.name(), Boolean.TRUE.equals(b.admin()));
        ctx.status(201).json(new Views.CreatedKey(c.key().id(), c.key().name(), c.key().tenantId(), c.key().admin(), c.secret()));
        ctx.header("Cache-Control", "no-store");
    }

    private static void requireTenant(String tenant) {
        if (!TENANT.matcher(tenant).matches()) {
            throw new PaddockException(ErrorCode.INVALID_FIELD,
                    "'tenant_id' must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit");
        }
    }
}
