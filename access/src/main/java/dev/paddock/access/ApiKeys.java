package dev.paddock.access;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.store.ApiKey;
import dev.paddock.core.store.ApiKeyStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * API keys: {@code pdk_} followed by 43 random base64url characters (256 bits). Only a SHA-256 of the secret is
 * stored — a fast hash is enough for secrets with this much entropy, and keeps authentication cheap per request.
 */
public final class ApiKeys {
    public static final String DEFAULT_TENANT = "default";
    /** The tenant whose admin keys are the operator's: the first admin key is made in it. */
    public static final String OPERATOR_TENANT = DEFAULT_TENANT;
    private static final String PREFIX = "pdk_";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ApiKeyStore store;
    private final Clock clock;

    public record Created(ApiKey key, String secret) {}

    public ApiKeys(ApiKeyStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    public Created create(String tenantId, String name, boolean admin) {
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String secret = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        return new Created(register(tenantId, name, secret, admin), secret);
    }

    /** Stores a key whose secret the operator chose (e.g. PADDOCK_API_KEY), unless it is already stored. */
    public ApiKey register(String tenantId, String name, String secret, boolean admin) {
        if (secret == null || secret.length() < 16) {
            throw new PaddockException(ErrorCode.WEAK_API_KEY, "an API key must be at least 16 characters long");
        }
        String hash = hash(secret);
        Optional<ApiKey> existing = store.findActiveByHash(hash);
        if (existing.isPresent()) return existing.get();
        ApiKey key = new ApiKey(Ids.newId("key"), tenantId, name, secret.substring(0, Math.min(8, secret.length())),
                hash, admin, clock.instant(), null);
        store.insert(key);
        return key;
    }

    public Optional<Principal> authenticate(String secret) {
        if (secret == null || secret.isEmpty() || secret.length() > 256) return Optional.empty();
        return store.findActiveByHash(hash(secret)).map(k -> new Principal(k.tenantId(), k.id(), k.admin()));
    }

    /** Whether the key of this id was revoked; false for an id the store does not know (e.g. a node's own principal). */
    public boolean revoked(String keyId) {
        return keyId != null && store.find(keyId).map(k -> k.revokedAt() != null).orElse(false);
    }

    /**
     * Creates a key on behalf of {@code caller}, an admin: the operator creates keys in any tenant ({@code tenantId}
     * null: a new tenant), a tenant admin only in its own ({@code tenantId} null or its own).
     */
    public Created issue(Principal caller, String tenantId, String name, boolean admin) {
        requireAdmin(caller);
        String tenant;
        if (caller.operator()) {
            tenant = tenantId != null ? tenantId : Ids.newId("ten");
        } else if (tenantId == null || tenantId.equals(caller.tenantId())) {
            tenant = caller.tenantId();
        } else {
            throw new PaddockException(ErrorCode.TENANT_FORBIDDEN,
                    "an admin key manages keys of its own tenant only; the operator's admin key manages other tenants' keys");
        }
        return create(tenant, name, admin);
    }

    /** The keys {@code caller} may manage, revoked ones included: the operator's are every tenant's (or {@code tenantId}'s). */
    public List<ApiKey> list(Principal caller, String tenantId) {
        requireAdmin(caller);
        if (caller.operator()) return tenantId == null ? store.listAll() : store.list(tenantId);
        if (tenantId != null && !tenantId.equals(caller.tenantId())) {
            throw new PaddockException(ErrorCode.TENANT_FORBIDDEN,
                    "an admin key lists keys of its own tenant only; the operator's admin key lists other tenants' keys");
        }
        return store.list(caller.tenantId());
    }

    /**
     * Revokes a key: any key may revoke itself, a tenant admin any key of its tenant, the operator any key. A key
     * the caller may not manage is not found, so key ids of other tenants do not leak.
     */
    public void revoke(Principal caller, String keyId) {
        if (keyId.equals(caller.keyId())) {
            store.revoke(keyId);
            return;
        }
        requireAdmin(caller);
        ApiKey key = store.find(keyId)
                .filter(k -> caller.operator() || k.tenantId().equals(caller.tenantId()))
                .orElseThrow(() -> PaddockException.notFound("api key", keyId));
        store.revoke(key.id());
    }

    private static void requireAdmin(Principal caller) {
        if (!caller.admin()) {
            throw new PaddockException(ErrorCode.ADMIN_REQUIRED, "only an admin API key may manage API keys");
        }
    }

    public boolean any() {
        return store.count() > 0;
    }

    static String hash(String secret) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
