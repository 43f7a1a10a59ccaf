package dev.paddock.server.http;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.access.ApiKeys;
import dev.paddock.access.Principal;
import dev.paddock.server.cluster.NodeAuth;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Authenticates a request by its API key ({@code x-api-key} or {@code Authorization: Bearer}) and remembers the
 * caller on the context. Keys are never logged or echoed back.
 */
public final class Auth {
    private static final String PRINCIPAL = "paddock.principal";
    private final ApiKeys keys;
    /** Other credentials (a module's, such as environment keys) by request path and key; empty when they do not apply. */
    private final BiFunction<String, String, Optional<Principal>> otherKeys;

    /** A node's forwarded requests; null when this server is not a node of a cluster. */
    private final NodeAuth nodes;

    public Auth(ApiKeys keys, BiFunction<String, String, Optional<Principal>> otherKeys) {
        this(keys, otherKeys, null);
    }

    public Auth(ApiKeys keys, BiFunction<String, String, Optional<Principal>> otherKeys, NodeAuth nodes) {
        this.keys = keys;
        this.otherKeys = otherKeys;
        this.nodes = nodes;
    }

    public void authenticate(Context ctx) {
        if (ctx.header(NodeAuth.SECRET_HEADER) != null) {
            // node credentials are honoured only where this server is a node; anywhere else they are a wrong key
            Principal forwarded = nodes == null ? null : nodes.authenticate(ctx).orElse(null);
            if (forwarded == null) throw new PaddockException(ErrorCode.INVALID_API_KEY, "node credentials are not accepted here");
            ctx.attribute(PRINCIPAL, forwarded);
            return;
        }
        String key = presentedKey(ctx);
        if (key == null) {
            throw new PaddockException(ErrorCode.MISSING_API_KEY,
                    "send an API key in the x-api-key header or as Authorization: Bearer <key>");
        }
        Principal p = keys.authenticate(key).or(() -> otherKeys.apply(ctx.path(), key)).orElseThrow(() -> new PaddockException(ErrorCode.INVALID_API_KEY, "the API key is unknown or revoked"));
        ctx.attribute(PRINCIPAL, p);
    }

    public static Principal principal(Context ctx) {
        Principal p = ctx.attribute(PRINCIPAL);
        // a route reached without a key (a public path under another method): refuse, as if the key were missing
        if (p == null) throw new PaddockException(ErrorCode.MISSING_API_KEY,
                "send an API key in the x-api-key header or as Authorization: Bearer <key>");
        return p;
    }

    /** The authenticated caller; empty on a path that carries its own credential (a token URL). */
    public static Optional<Principal> caller(Context ctx) {
        return Optional.ofNullable(ctx.attribute(PRINCIPAL));
    }

    public static Principal admin(Context ctx) {
        return admin(ctx, "manage API keys");
    }

    /** The caller, who must hold an admin key; {@code what} completes "only an admin API key may …". */
    public static Principal admin(Context ctx, String what) {
        Principal p = principal(ctx);
        if (!p.admin()) {
            throw new PaddockException(ErrorCode.ADMIN_REQUIRED, "only an admin API key may " + what);
        }
        return p;
    }

    /** The caller, who must hold the operator's admin key (shared resources such as images are the operator's). */
    public static Principal operator(Context ctx, String what) {
        Principal p = principal(ctx);
        if (!p.operator()) {
            throw new PaddockException(ErrorCode.OPERATOR_REQUIRED, "only the operator's admin API key may " + what);
        }
        return p;
    }

    private static String presentedKey(Context ctx) {
        String header = ctx.header("x-api-key");
        if (header != null && !header.isBlank()) return header.strip();
        String auth = ctx.header("Authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String token = auth.substring(7).strip();
            return token.isEmpty() ? null : token;
        }
        return null;
    }
}
