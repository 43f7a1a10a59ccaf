package dev.paddock.core.egress;

import java.time.Instant;

/**
 * A secret as a {@link SecretRepository} keeps it: AES-256-GCM ciphertext (tag appended) under a random 96-bit
 * nonce, bound to its tenant and id as associated data so a row moved to another tenant no longer decrypts.
 */
public record StoredSecret(String id, String tenantId, String name, byte[] nonce, byte[] ciphertext,
                           Instant createdAt, Instant updatedAt, int version) {
    public StoredSecret {
        nonce = nonce.clone();
        ciphertext = ciphertext.clone();
    }

    @Override
    public byte[] nonce() { return nonce.clone(); }

    @Override
    public byte[] ciphertext() { return ciphertext.clone(); }

    public SecretMetadata metadata() { return new SecretMetadata(id, tenantId, name, createdAt, updatedAt, version); }

    @Override
    public String toString() {
        return "StoredSecret[id=" + id + ", tenantId=" + tenantId + ", name=" + name + ", version=" + version + "]";
    }
}
