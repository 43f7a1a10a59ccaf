package dev.paddock.images;

import dev.paddock.core.Text;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** sha256 digests in the OCI form {@code sha256:<64 hex>}. */
final class Digests {
    private static final Pattern SHA256 = Pattern.compile("sha256:[a-f0-9]{64}");

    private Digests() {}

    /** Checks the form of a digest string; other algorithms get a clear "unsupported" error. */
    static String requireSha256(String digest, String what) {
        if (digest == null || !SHA256.matcher(digest).matches()) {
            if (digest != null && digest.matches("[a-z0-9]+([+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+")) {
                throw ImageErrors.unsupported(what + " uses digest '" + Text.clip(digest, 100)
                        + "'; only sha256 digests are supported");
            }
            throw ImageErrors.invalidArchive(what + " has a missing or malformed digest");
        }
        return digest;
    }

    static String hex(String digest) {
        return digest.substring("sha256:".length());
    }

    static String of(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return of(in);
        }
    }

    /** Digest of the whole remaining stream. */
    static String of(InputStream in) throws IOException {
        MessageDigest sha = sha256();
        byte[] buffer = new byte[64 * 1024];
        int n;
        while ((n = in.read(buffer)) > 0) sha.update(buffer, 0, n);
        return "sha256:" + HexFormat.of().formatHex(sha.digest());
    }

    static void verify(Path file, String expected, String what) throws IOException {
        String actual = of(file);
        if (!actual.equals(expected)) throw ImageErrors.digestMismatch(what, expected, actual);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available in the JDK", e);
        }
    }
}
