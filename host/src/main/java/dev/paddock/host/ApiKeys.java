package dev.paddock.host;

import dev.paddock.core.ErrorType;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.store.ApiKey;
import dev.paddock.core.store.ApiKeyStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * API keys: {@code pdk_} followed by 43 random base64url characters (256 bits). Only a SHA-256 of the secret is
 * stored — a fast hash is enough for secrets with this much entropy, and keeps authentication cheap per request.
 */
public final class ApiKeys {
    public static final String DEFAULT_TENANT = "default";
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
        String secret = PREFIX + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        return new Created(register(tenantId, name, secret, admin), secret);
    }

    /** Stores a key whose secret the operator chose (e.g. PADDOCK_API_KEY), unless it is already stored. */
    public ApiKey register(String tenantId, String name, String secret, boolean admin) {
        if (secret == null || secret.length() < 16) {
            throw PaddockException.invalid("weak_api_key", "an API key must be at least 16 characters long");
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

    public List<ApiKey> list(Principal caller) {
        return store.list(caller.tenantId());
    }

    public void revoke(Principal caller, String keyId) {
        ApiKey key = store.list(caller.tenantId()).stream().filter(k -> k.id().equals(keyId)).findFirst()
                .orElseThrow(() -> PaddockException.notFound("api key", keyId));
        if (key.id().equals(caller.keyId())) {
            throw new PaddockException(ErrorType.INVALID_REQUEST, "cannot_revoke_self", "an API key cannot revoke itself; use another admin key");
        }
        store.revoke(key.id());
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
