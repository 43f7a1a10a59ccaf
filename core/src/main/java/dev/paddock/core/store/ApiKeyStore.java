package dev.paddock.core.store;

import java.util.List;
import java.util.Optional;

public interface ApiKeyStore {
    void insert(ApiKey key);

    /** The active (not revoked) key with this secret hash. */
    Optional<ApiKey> findActiveByHash(String secretHash);

    List<ApiKey> list(String tenantId);

    void revoke(String id);

    long count();
}
