package dev.paddock.egress.vault;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The 256-bit AES key that encrypts the vault. It comes from {@code <dataDir>/vault.key} (base64, created with
 * mode 0600 on first use; refused when group or others can read it) or from an environment variable the caller
 * names. Its {@link #toString()} never shows the key.
 */
public final class VaultKey {
    public static final String FILE_NAME = "vault.key";

    private final SecretKey key;

    private VaultKey(byte[] raw) {
        if (raw.length != 32) throw new PaddockException(ErrorCode.INVALID_VAULT_KEY, "the vault key must be 32 bytes (256 bits), base64-encoded");
        this.key = new SecretKeySpec(raw, "AES");
    }

    /** Reads {@code <dataDir>/vault.key}, creating it with a fresh random key (mode 0600) when it does not exist. */
    public static VaultKey fromDataDir(Path dataDir) {
        Path file = dataDir.resolve(FILE_NAME);
        try {
            Files.createDirectories(dataDir);
            if (!Files.exists(file)) createKeyFile(file);
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            if (perms.contains(PosixFilePermission.GROUP_READ) || perms.contains(PosixFilePermission.OTHERS_READ)
                    || perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw new PaddockException(ErrorCode.VAULT_KEY_PERMISSIONS, file + " is readable or writable by group or others; run: chmod 600 " + file);
            }
            return fromBase64(Files.readString(file, StandardCharsets.US_ASCII).strip(), file.toString());
        } catch (IOException e) {
            throw PaddockException.internal("cannot read or create the vault key " + file, e);
        }
    }

    /** Reads the base64 key from the environment variable {@code name} (e.g. {@code PADDOCK_VAULT_KEY}). */
    public static VaultKey fromEnvironment(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new PaddockException(ErrorCode.VAULT_KEY_MISSING, "environment variable " + name + " is not set; set it to 32 random bytes in base64 (openssl rand -base64 32)");
        }
        return fromBase64(value.strip(), "environment variable " + name);
    }

    /** A key given as base64 text; {@code source} names where it came from in error messages. */
    public static VaultKey fromBase64(String base64, String source) {
        try {
            return new VaultKey(Base64.getDecoder().decode(base64));
        } catch (IllegalArgumentException e) {
            throw new PaddockException(ErrorCode.INVALID_VAULT_KEY, source + " does not hold a base64-encoded 256-bit key (openssl rand -base64 32)");
        }
    }

    SecretKey key() { return key; }

    /**
     * 16 bytes of HMAC-SHA256 over {@code label} under a key derived from this one (never the AES key itself), so
     * placeholders are stable for one installation and reveal nothing about the vault key or any secret.
     */
    byte[] placeholderToken(String label) {
        try {
            Mac derive = Mac.getInstance("HmacSHA256");
            derive.init(new SecretKeySpec(key.getEncoded(), "HmacSHA256"));
            byte[] subkey = derive.doFinal("paddock-placeholder-key-v1".getBytes(StandardCharsets.UTF_8));
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(subkey, "HmacSHA256"));
            return Arrays.copyOf(mac.doFinal(label.getBytes(StandardCharsets.UTF_8)), 16);
        } catch (GeneralSecurityException e) {
            throw PaddockException.internal("HmacSHA256 is not available", e);
        }
    }

    @Override
    public String toString() { return "VaultKey[redacted]"; }

    private static void createKeyFile(Path file) throws IOException {
        byte[] raw = new byte[32];
        new SecureRandom().nextBytes(raw);
        Path tmp = Files.createTempFile(file.getParent(), ".vault-key-", ".tmp", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, Base64.getEncoder().encodeToString(raw) + "\n", StandardCharsets.US_ASCII);
            // a hard link fails when the key already exists, so two processes starting at once agree on one key
            Files.createLink(file, tmp);
        } catch (FileAlreadyExistsException e) {
            // another process created it first: use theirs
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
