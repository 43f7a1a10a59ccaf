package dev.paddock.core.egress;

import java.util.List;

/**
 * A tenant's secrets as the API manages them: the port the server's secret routes use, implemented by the egress
 * module's vault. Answers are metadata only; no value ever comes back through it.
 */
public interface SecretVault {
    /** Stores a new secret; {@code secret_name_taken} (409) when the tenant already has one of that name. */
    SecretMetadata create(String tenantId, String name, SecretValue value);

    /** The tenant's secrets, ordered by id. */
    List<SecretMetadata> list(String tenantId);

    /** The secret's metadata, or {@code not_found} (404). */
    SecretMetadata get(String tenantId, String id);

    /** Replaces the value (version + 1); placeholders bound to the secret keep working. */
    SecretMetadata rotate(String tenantId, String id, SecretValue value);

    /** Deletes the secret, or {@code not_found} (404). */
    void delete(String tenantId, String id);
}
