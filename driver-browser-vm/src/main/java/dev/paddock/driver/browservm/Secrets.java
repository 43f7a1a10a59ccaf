package dev.paddock.driver.browservm;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/** Random secrets (pairing codes, runtime tokens) and the hashes they are kept as: the secrets themselves are never stored. */
final class Secrets {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Secrets() {}

    static String newSecret(String prefix) {
        byte[] b = new byte[24];
        RANDOM.nextBytes(b);
        return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    static String hash(String secret) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A cheap shape check before any lookup, so garbage never reaches the maps or the logs. */
    static boolean looksLike(String prefix, String secret) {
        return secret != null && secret.length() == prefix.length() + 32 && secret.startsWith(prefix)
                && secret.substring(prefix.length()).chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '_');
    }
}
