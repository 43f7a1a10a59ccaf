package dev.paddock.server.cluster;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import io.javalin.http.Context;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The credential of a request one node forwards to another: the cluster secret in {@link #SECRET_HEADER} and the
 * caller the first node authenticated in {@link #PRINCIPAL_HEADER}. The caller is trusted only together with a
 * secret that matches (compared in constant time); a client that sends these headers is refused like a wrong key.
 */
public final class NodeAuth {
    public static final String SECRET_HEADER = "x-paddock-node-secret";
    public static final String PRINCIPAL_HEADER = "x-paddock-node-principal";
    private static final String FORWARDED = "paddock.node-forwarded";
    private final byte[] secret;

    public NodeAuth(String secret) {
        this.secret = secret.getBytes(StandardCharsets.UTF_8);
    }

    /** The forwarded caller, when the request carries node credentials; refused when they do not hold. */
    public Optional<Principal> authenticate(Context ctx) {
        String presented = ctx.header(SECRET_HEADER);
        if (presented == null) return Optional.empty();
        requireSecret(presented);
        Principal p = decode(ctx.header(PRINCIPAL_HEADER));
        ctx.attribute(FORWARDED, Boolean.TRUE);
        return Optional.of(p);
    }

    /**
     * A request on a path that carries its own credential (a terminal's attach token, a port's token URL) forwarded
     * by another node: the secret must hold; it names no caller, and the path's own credential is checked as ever.
     * Without node credentials nothing happens.
     */
    public void authenticateTokenPath(Context ctx) {
        String presented = ctx.header(SECRET_HEADER);
        if (presented == null) return;
        requireSecret(presented);
        ctx.attribute(FORWARDED, Boolean.TRUE);
    }

    private void requireSecret(String presented) {
        if (!MessageDigest.isEqual(secret, presented.getBytes(StandardCharsets.UTF_8))) {
            throw new PaddockException(ErrorCode.INVALID_API_KEY, "the node credential of the forwarded request is wrong");
        }
    }

    /** True when another node forwarded this request: it is answered here, never forwarded again. */
    public static boolean forwarded(Context ctx) {
        return Boolean.TRUE.equals(ctx.attribute(FORWARDED));
    }

    String secret() {
        return new String(secret, StandardCharsets.UTF_8);
    }

    static String encode(Principal p) {
        return URLEncoder.encode(p.tenantId(), StandardCharsets.UTF_8) + ";" + URLEncoder.encode(p.keyId() == null ? "" : p.keyId(), StandardCharsets.UTF_8)
                + ";" + p.admin();
    }

    private static Principal decode(String header) {
        String[] parts = header == null ? new String[0] : header.split(";", -1);
        if (parts.length != 3 || !(parts[2].equals("true") || parts[2].equals("false"))) {
            throw new PaddockException(ErrorCode.INVALID_API_KEY, "the forwarded request does not name its caller");
        }
        String keyId = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
        return new Principal(URLDecoder.decode(parts[0], StandardCharsets.UTF_8), keyId.isEmpty() ? null : keyId,
                Boolean.parseBoolean(parts[2]));
    }
}
