package dev.paddock.egress.vault;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.egress.SecretCipher;
import dev.paddock.core.egress.SecretMetadata;
import dev.paddock.core.egress.SecretRepository;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.egress.SecretVault;
import dev.paddock.core.egress.StoredSecret;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Tenant-scoped secrets, encrypted at rest with AES-256-GCM (a fresh random 96-bit nonce for every value, the
 * tenant and secret id as associated data). Listing and metadata never include values; only {@link #reveal}
 * decrypts, and the egress proxy is its only intended caller. As a {@link SecretCipher} it seals values kept in other
 * rows (vault credentials for MCP servers) with the same key and cipher, under associated data of their own.
 */
public final class Vault implements SecretVault, SecretCipher {
    private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final SecretRepository repository;
    private final VaultKey key;
    private final SecureRandom random = new SecureRandom();

    public Vault(SecretRepository repository, VaultKey key) {
        this.repository = repository;
        this.key = key;
    }

    /** Stores a new secret; names are unique per tenant. */
    @Override
    public synchronized SecretMetadata create(String tenantId, String name, SecretValue value) {
        requireTenant(tenantId);
        if (name == null || !NAME.matcher(name).matches()) {
            throw new PaddockException(ErrorCode.INVALID_SECRET_NAME, "secret name '" + Text.clip(name, 60) + "' must be 1-128 characters of A-Z a-z 0-9 _ . -");
        }
        if (value == null) throw new PaddockException(ErrorCode.INVALID_SECRET, "a secret value is required");
        if (repository.list(tenantId).stream().anyMatch(s -> s.name().equals(name))) {
            throw new PaddockException(ErrorCode.SECRET_NAME_TAKEN, "a secret named '" + name + "' already exists; rotate it or pick another name");
        }
        String id = Ids.newId("sec");
        Instant now = Instant.now();
        StoredSecret stored = seal(id, tenantId, name, value, now, now, 1);
        repository.put(stored);
        return stored.metadata();
    }

    @Override
    public List<SecretMetadata> list(String tenantId) {
        requireTenant(tenantId);
        return repository.list(tenantId).stream().map(StoredSecret::metadata).toList();
    }

    @Override
    public SecretMetadata get(String tenantId, String id) {
        return load(tenantId, id).metadata();
    }

    /** Replaces the value (new nonce, version + 1). Placeholders bound to the secret keep working. */
    @Override
    public synchronized SecretMetadata rotate(String tenantId, String id, SecretValue value) {
        if (value == null) throw new PaddockException(ErrorCode.INVALID_SECRET, "a secret value is required");
        StoredSecret old = load(tenantId, id);
        StoredSecret stored = seal(id, tenantId, old.name(), value, old.createdAt(), Instant.now(), old.version() + 1);
        repository.put(stored);
        return stored.metadata();
    }

    @Override
    public synchronized void delete(String tenantId, String id) {
        requireTenant(tenantId);
        if (!isSecretId(id) || !repository.delete(tenantId, id)) throw PaddockException.notFound("secret", Text.clip(id, 40));
    }

    /** Decrypts a secret. Only for the egress proxy, at the moment the value leaves for its destination. */
    public SecretValue reveal(String tenantId, String id) {
        StoredSecret s = load(tenantId, id);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key.key(), new GCMParameterSpec(TAG_BITS, s.nonce()));
            cipher.updateAAD(aad(tenantId, id));
            return SecretValue.ofBytes(cipher.doFinal(s.ciphertext()));
        } catch (GeneralSecurityException e) {
            // wrong key or tampered ciphertext: say which secret, never anything about its content
            throw new PaddockException(ErrorCode.SECRET_UNDECRYPTABLE,
                    "secret " + id + " cannot be decrypted with this vault key (wrong key or damaged data)");
        }
    }

    @Override
    public byte[] seal(String tenantId, String ownerId, SecretValue value) {
        requireTenant(tenantId);
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key.key(), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(ownedAad(tenantId, ownerId));
            byte[] sealed = cipher.doFinal(value.bytes());
            byte[] out = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
            return out;
        } catch (GeneralSecurityException e) {
            throw PaddockException.internal("cannot encrypt the secret of " + ownerId, e);
        }
    }

    @Override
    public SecretValue open(String tenantId, String ownerId, byte[] sealed) {
        requireTenant(tenantId);
        try {
            if (sealed == null || sealed.length <= NONCE_BYTES) throw new GeneralSecurityException("too short");
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key.key(), new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
            cipher.updateAAD(ownedAad(tenantId, ownerId));
            return SecretValue.ofBytes(cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES));
        } catch (GeneralSecurityException e) {
            throw new PaddockException(ErrorCode.SECRET_UNDECRYPTABLE,
                    "the secret of " + ownerId + " cannot be decrypted with this vault key (wrong key or damaged data)");
        }
    }

    /** A token derived from the vault key for {@code label} that reveals nothing about the key ({@link VaultKey#placeholderToken}). */
    public byte[] placeholderToken(String label) { return key.placeholderToken(label); }

    static boolean isSecretId(String id) { return Ids.isValid("sec", id); }

    static String requireTenant(String tenantId) {
        if (tenantId == null || !TENANT.matcher(tenantId).matches()) {
            throw new PaddockException(ErrorCode.INVALID_TENANT, "tenant id '" + Text.clip(tenantId, 60) + "' must be 1-64 characters of A-Z a-z 0-9 _ -");
        }
        return tenantId;
    }

    private StoredSecret load(String tenantId, String id) {
        requireTenant(tenantId);
        if (!isSecretId(id)) throw new PaddockException(ErrorCode.INVALID_ID, "secret id must look like sec_0123456789abcdefghjkmnpqrs, got '" + Text.clip(id, 40) + "'");
        return repository.get(tenantId, id).orElseThrow(() -> PaddockException.notFound("secret", id));
    }

    private StoredSecret seal(String id, String tenantId, String name, SecretValue value, Instant created, Instant updated, int version) {
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key.key(), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(aad(tenantId, id));
            return new StoredSecret(id, tenantId, name, nonce, cipher.doFinal(value.bytes()), created, updated, version);
        } catch (GeneralSecurityException e) {
            throw PaddockException.internal("cannot encrypt secret " + id, e);
        }
    }

    private static byte[] ownedAad(String tenantId, String ownerId) {
        return ("paddock-vault-owned-v1|" + tenantId + "|" + ownerId).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] aad(String tenantId, String id) {
        return ("paddock-vault-v1|" + tenantId + "|" + id).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() { return "Vault[" + repository.getClass().getSimpleName() + "]"; }
}
