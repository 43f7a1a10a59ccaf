package dev.paddock.core.egress;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * A secret in memory. Its {@link #toString()} is redacted so it cannot leak through logs, string concatenation
 * or exception messages; the value comes out only through {@link #reveal()}, called by the proxy when it injects it.
 */
public final class SecretValue {
    /** Largest secret accepted (64 KiB). */
    public static final int MAX_BYTES = 64 * 1024;

    private final byte[] utf8;

    private SecretValue(byte[] utf8) {
        if (utf8.length == 0) throw new PaddockException(ErrorCode.INVALID_SECRET, "a secret value must not be empty");
        if (utf8.length > MAX_BYTES) throw new PaddockException(ErrorCode.INVALID_SECRET, "a secret value must be at most " + MAX_BYTES + " bytes");
        this.utf8 = utf8;
    }

    public static SecretValue of(String value) {
        if (value == null) throw new PaddockException(ErrorCode.INVALID_SECRET, "a secret value is required");
        return new SecretValue(value.getBytes(StandardCharsets.UTF_8));
    }

    /** The value from its UTF-8 bytes (copied), as the vault decrypts it. */
    public static SecretValue ofBytes(byte[] utf8) { return new SecretValue(utf8.clone()); }

    /** The plain value. Call only where it leaves for its destination. */
    public String reveal() { return new String(utf8, StandardCharsets.UTF_8); }

    /** The plain value's UTF-8 bytes (a copy), for the vault to encrypt. */
    public byte[] bytes() { return utf8.clone(); }

    /** True when the value can be written into an HTTP header without changing the header's structure. */
    public boolean isHeaderSafe() {
        String s = reveal();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 && c != '\t' || c == 0x7f || c > 0xff) return false;
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SecretValue other && MessageDigest.isEqual(utf8, other.utf8);
    }

    @Override
    public int hashCode() { return 0; } // constant: a hash of the value would leak information about it

    @Override
    public String toString() { return "SecretValue[redacted]"; }
}
