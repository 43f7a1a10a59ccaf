package dev.paddock.core.egress;

/**
 * Encrypts secrets that live inside another resource's row (a vault credential's token) with the installation's
 * vault key, bound to the tenant and the owning resource's id so a sealed value copied to another row does not open.
 * Implemented by the egress module's vault.
 */
public interface SecretCipher {
    /** The sealed form of {@code value} for {@code ownerId} of {@code tenantId}: safe to store, never to show. */
    byte[] seal(String tenantId, String ownerId, SecretValue value);

    /** The value sealed for this tenant and owner; {@code secret_undecryptable} when the key or the data is wrong. */
    SecretValue open(String tenantId, String ownerId, byte[] sealed);
}
