package dev.paddock.agents;

import dev.paddock.agents.mcp.McpUrls;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.egress.SecretValue;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A vault credential's {@code auth}: checks what a client sends and splits it into the part that is answered
 * ({@code type}, {@code mcp_server_url}, {@code expires_at}) and the token, which is write-only. Paddock uses the two
 * MCP types, {@code static_bearer} and {@code mcp_oauth} (its access token, without refresh); the egress type
 * {@code environment_variable} is refused with a code that says so.
 */
final class CredentialAuth {
    static final String STATIC_BEARER = "static_bearer";
    static final String MCP_OAUTH = "mcp_oauth";
    private static final String ENVIRONMENT_VARIABLE = "environment_variable";

    /** A new credential's answered part, its MCP server URL and its token. */
    record Created(Map<String, Object> response, String mcpServerUrl, SecretValue token) {}

    /** An update's answered part and its new token (null: the stored one stays). */
    record Updated(Map<String, Object> response, SecretValue token) {}

    private CredentialAuth() {}

    static Created create(Map<String, Object> auth, Instant now) {
        if (auth == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'auth' is required");
        String type = type(auth);
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("type", type);
        SecretValue token;
        switch (type) {
            case STATIC_BEARER -> {
                Fields.allowOnly(auth, Set.of("type", "token", "mcp_server_url"), "auth");
                token = token(auth, "token");
            }
            case MCP_OAUTH -> {
                Fields.allowOnly(auth, Set.of("type", "access_token", "mcp_server_url", "expires_at", "refresh"), "auth");
                refuseRefresh(auth);
                token = token(auth, "access_token");
            }
            default -> throw unsupported(type);
        }
        String url = url(auth);
        response.put("mcp_server_url", url);
        if (MCP_OAUTH.equals(type)) {
            response.put("expires_at", expiresAt(auth, now));
            response.put("refresh", null);
        }
        return new Created(response, url, token);
    }

    static Updated update(Map<String, Object> stored, Map<String, Object> patch, Instant now) {
        String type = type(patch);
        if (!type.equals(stored.get("type"))) {
            throw new PaddockException(ErrorCode.CREDENTIAL_TYPE_MISMATCH, "field 'auth.type' must be the credential's type, '"
                    + stored.get("type") + "'; a credential's type cannot change");
        }
        Map<String, Object> response = new LinkedHashMap<>(stored);
        SecretValue token;
        if (STATIC_BEARER.equals(type)) {
            Fields.allowOnly(patch, Set.of("type", "token"), "auth");
            token = patch.get("token") == null ? null : token(patch, "token");
        } else {
            Fields.allowOnly(patch, Set.of("type", "access_token", "expires_at", "refresh"), "auth");
            refuseRefresh(patch);
            token = patch.get("access_token") == null ? null : token(patch, "access_token");
            if (patch.get("expires_at") != null) response.put("expires_at", expiresAt(patch, now));
        }
        return new Updated(response, token);
    }

    private static String type(Map<String, Object> auth) {
        String type = Fields.requiredString(auth, "type", 64);
        if (type.equals(ENVIRONMENT_VARIABLE)) throw unsupported(type);
        if (!type.equals(STATIC_BEARER) && !type.equals(MCP_OAUTH)) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'auth.type' must be static_bearer or mcp_oauth, got '" + Text.clip(type, 60) + "'");
        }
        return type;
    }

    private static PaddockException unsupported(String type) {
        return new PaddockException(ErrorCode.CREDENTIAL_TYPE_NOT_SUPPORTED, "Paddock does not use '" + Text.clip(type, 60)
                + "' credentials yet; for egress secrets use /v1/secrets with an environment's credential rules, for MCP servers use static_bearer or mcp_oauth");
    }

    private static void refuseRefresh(Map<String, Object> auth) {
        if (auth.get("refresh") != null) {
            throw new PaddockException(ErrorCode.OAUTH_REFRESH_NOT_SUPPORTED, "Paddock does not refresh OAuth access tokens yet; send no 'auth.refresh' "
                    + "and update the credential's access_token when it expires");
        }
    }

    /** The token: a non-empty string that fits in an HTTP header (no line breaks or control characters). */
    private static SecretValue token(Map<String, Object> auth, String field) {
        Object v = auth.get(field);
        if (v == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'auth." + field + "' is required");
        // the message never quotes the value: it is a secret
        if (!(v instanceof String s) || s.isBlank()) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'auth." + field + "' must be a non-empty string");
        SecretValue value = SecretValue.of(s);
        if (!value.isHeaderSafe() || !s.strip().equals(s)) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'auth." + field + "' must be printable characters without surrounding spaces or line breaks");
        }
        return value;
    }

    private static String url(Map<String, Object> auth) {
        String url = Fields.requiredString(auth, "mcp_server_url", 2048);
        if (McpUrls.parse(url).isEmpty()) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'auth.mcp_server_url' must be an absolute http(s) URL with a host and no user info");
        }
        return url;
    }

    private static String expiresAt(Map<String, Object> auth, Instant now) {
        String raw = Fields.optionalString(auth, "expires_at", 64);
        if (raw == null) return null;
        Instant at;
        try {
            at = Instant.parse(raw);
        } catch (DateTimeParseException e) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'auth.expires_at' must be an RFC 3339 time, got '" + Text.clip(raw, 40) + "'");
        }
        if (!at.isAfter(now)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'auth.expires_at' must be in the future");
        return Times.iso(at);
    }
}
