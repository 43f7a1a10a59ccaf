package dev.paddock.images;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a debootstrap build should produce.
 *
 * @param packages extra Debian packages for {@code --include} (may be empty)
 * @param suite    Debian suite, {@code bookworm} by default
 * @param mirror   http(s) mirror URL; null means "the host's configured Debian mirror, else deb.debian.org"
 * @param timeout  how long debootstrap may run before it is stopped
 */
public record BuildSpec(List<String> packages, String suite, String mirror, Duration timeout) {
    public static final String DEFAULT_SUITE = "bookworm";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);

    // Debian policy for package names, plus an optional ":arch" qualifier.
    private static final Pattern PACKAGE = Pattern.compile("[a-z0-9][a-z0-9+.-]{0,99}(:[a-z0-9-]{1,20})?");
    private static final Pattern SUITE = Pattern.compile("[a-z][a-z0-9-]{0,31}");

    public BuildSpec {
        packages = packages == null ? List.of() : List.copyOf(packages);
        suite = suite == null ? DEFAULT_SUITE : suite;
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        for (String p : packages) {
            if (p == null || !PACKAGE.matcher(p).matches()) {
                throw new PaddockException(ErrorCode.INVALID_PACKAGE_NAME,
                        "package name '" + Text.clip(p, 80) + "' is not a valid Debian package name");
            }
        }
        if (!SUITE.matcher(suite).matches()) {
            throw new PaddockException(ErrorCode.INVALID_SUITE,
                    "suite '" + Text.clip(suite, 40) + "' is not a valid Debian suite name (e.g. bookworm)");
        }
        if (mirror != null) validateMirror(mirror);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new PaddockException(ErrorCode.INVALID_TIMEOUT, "build timeout must be positive");
        }
    }

    public static BuildSpec defaults() {
        return new BuildSpec(List.of(), DEFAULT_SUITE, null, DEFAULT_TIMEOUT);
    }

    public static BuildSpec withPackages(List<String> packages) {
        return new BuildSpec(packages, DEFAULT_SUITE, null, DEFAULT_TIMEOUT);
    }

    public BuildSpec withMirror(String newMirror) {
        return new BuildSpec(packages, suite, newMirror, timeout);
    }

    static void validateMirror(String mirror) {
        boolean ok;
        try {
            URI uri = new URI(mirror);
            ok = ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                    && uri.getHost() != null && !mirror.chars().anyMatch(c -> c <= ' ');
        } catch (Exception e) {
            ok = false;
        }
        if (!ok) {
            throw new PaddockException(ErrorCode.INVALID_MIRROR,
                    "mirror '" + Text.clip(mirror, 120) + "' must be an http:// or https:// URL");
        }
    }
}
