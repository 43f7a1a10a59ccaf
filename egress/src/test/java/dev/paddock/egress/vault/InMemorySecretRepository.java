package dev.paddock.egress.vault;

import dev.paddock.core.egress.SecretRepository;
import dev.paddock.core.egress.StoredSecret;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Test stand-in for the SQLite secret table: secrets (already encrypted by the {@link Vault}) held in memory. */
public final class InMemorySecretRepository implements SecretRepository {
    private final Map<String, StoredSecret> byKey = new ConcurrentHashMap<>();

    private static String key(String tenantId, String id) { return tenantId + "\u0000" + id; }

    @Override
    public void put(StoredSecret secret) { byKey.put(key(secret.tenantId(), secret.id()), secret); }

    @Override
    public Optional<StoredSecret> get(String tenantId, String id) { return Optional.ofNullable(byKey.get(key(tenantId, id))); }

    @Override
    public List<StoredSecret> list(String tenantId) {
        return byKey.values().stream().filter(s -> s.tenantId().equals(tenantId)).sorted(Comparator.comparing(StoredSecret::id)).toList();
    }

    @Override
    public boolean delete(String tenantId, String id) { return byKey.remove(key(tenantId, id)) != null; }
}
