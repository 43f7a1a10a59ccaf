package dev.paddock.core.store;

import java.util.List;
import java.util.Optional;

public interface ApiKeyStore {
    void insert(ApiKey key);

    /** The active (not revoked) key with this secret hash. */
    Optional<ApiKey> findActiveByHash(String secretHash);

    List<ApiKey> list(String tenantId);

    /** Every tenant's keys, revoked ones included, newest first: for the operator. */
    List<ApiKey> listAll();

    /** The key with this id, revoked or not. */
    Optional<ApiKey> find(String id);

    void revoke(String id);

    long count();
}
