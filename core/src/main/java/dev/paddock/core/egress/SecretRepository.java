package dev.paddock.core.egress;

import java.util.List;
import java.util.Optional;

/** Storage of encrypted secrets. Implementations see only ciphertext. Every lookup is scoped to a tenant. */
public interface SecretRepository {
    /** Inserts or replaces the secret with this tenant and id. */
    void put(StoredSecret secret);

    Optional<StoredSecret> get(String tenantId, String id);

    /** The tenant's secrets, ordered by id. */
    List<StoredSecret> list(String tenantId);

    /** True when a secret was removed. */
    boolean delete(String tenantId, String id);
}
