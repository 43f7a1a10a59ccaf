package dev.paddock.server.routes.agents;

import dev.paddock.agents.CredentialValidation;
import dev.paddock.agents.VaultCredentialService;
import dev.paddock.agents.VaultService;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

/**
 * {@code /v1/vaults} and their {@code credentials}: create, retrieve, list, update, archive, delete, and a live
 * probe of a credential against its MCP server. Credential secrets are write-only: no answer carries them.
 */
final class VaultRoutes {
    private static final String VAULT = "/v1/vaults/{vault_id}";
    private static final String CREDENTIAL = VAULT + "/credentials/{credential_id}";
    private final VaultService vaults;
    private final VaultCredentialService credentials;
    private final CredentialValidation validation;
    private final AgentBodies bodies;

    VaultRoutes(VaultService vaults, VaultCredentialService credentials, CredentialValidation validation, AgentBodies bodies) {
        this.vaults = vaults;
        this.credentials = credentials;
        this.validation = validation;
        this.bodies = bodies;
    }

    void register(RoutesConfig r) {
        r.post("/v1/vaults", ctx -> ctx.json(vaults.create(Auth.principal(ctx), bodies.json(ctx))));
        r.get("/v1/vaults", ctx -> AgentBodies.list(ctx, vaults.list(Auth.principal(ctx), AgentBodies.page(ctx),
                Params.bool(ctx, "include_archived", false))));
        r.get(VAULT, ctx -> ctx.json(vaults.get(Auth.principal(ctx), vault(ctx))));
        r.post(VAULT, ctx -> ctx.json(vaults.update(Auth.principal(ctx), vault(ctx), bodies.json(ctx))));
        r.delete(VAULT, ctx -> ctx.json(vaults.delete(Auth.principal(ctx), vault(ctx), credentials)));
        r.post(VAULT + "/archive", ctx -> {
            bodies.none(ctx);
            ctx.json(vaults.archive(Auth.principal(ctx), vault(ctx)));
        });

        r.post(VAULT + "/credentials", ctx -> ctx.json(credentials.create(Auth.principal(ctx), vault(ctx), bodies.json(ctx))));
        r.get(VAULT + "/credentials", ctx -> AgentBodies.list(ctx, credentials.list(Auth.principal(ctx), vault(ctx), AgentBodies.page(ctx),
                Params.bool(ctx, "include_archived", false))));
        r.get(CREDENTIAL, ctx -> ctx.json(credentials.get(Auth.principal(ctx), vault(ctx), credential(ctx))));
        r.post(CREDENTIAL, ctx -> ctx.json(credentials.update(Auth.principal(ctx), vault(ctx), credential(ctx), bodies.json(ctx))));
        r.delete(CREDENTIAL, ctx -> ctx.json(credentials.delete(Auth.principal(ctx), vault(ctx), credential(ctx))));
        r.post(CREDENTIAL + "/archive", ctx -> {
            bodies.none(ctx);
            ctx.json(credentials.archive(Auth.principal(ctx), vault(ctx), credential(ctx)));
        });
        r.post(CREDENTIAL + "/mcp_oauth_validate", ctx -> {
            bodies.none(ctx);
            ctx.json(validation.validate(Auth.principal(ctx), vault(ctx), credential(ctx)));
        });
    }

    private static String vault(Context ctx) {
        return ctx.pathParam("vault_id");
    }

    private static String credential(Context ctx) {
        return ctx.pathParam("credential_id");
    }
}
