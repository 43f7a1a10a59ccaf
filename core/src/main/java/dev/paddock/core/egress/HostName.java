package dev.paddock.core.egress;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;

import java.net.InetAddress;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Canonical form of a destination host: a lower-case DNS name without a trailing dot, a dotted-quad IPv4
 * literal, or an IPv6 literal (without brackets). Anything else is refused, including numeric tricks such as
 * {@code 2130706433} or {@code 0x7f.1}, which resolvers may quietly turn into loopback addresses.
 */
public final class HostName {
    private static final Pattern LABEL = Pattern.compile("[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?");
    private static final Pattern DOTTED_QUAD =
            Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-f:.]{2,45}");

    private HostName() {}

    /** The canonical host, or empty when {@code raw} is not an acceptable host name or IP literal. */
    public static Optional<String> normalize(String raw) {
        if (raw == null || raw.isEmpty() || raw.length() > 254) return Optional.empty();
        String host = raw.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        if (host.indexOf(':') >= 0) return ipv6(host);
        if (host.endsWith(".")) host = host.substring(0, host.length() - 1);
        if (DOTTED_QUAD.matcher(host).matches()) return Optional.of(host);
        if (host.isEmpty() || host.length() > 253) return Optional.empty();
        String[] labels = host.split("\\.", -1);
        for (String label : labels) if (!LABEL.matcher(label).matches()) return Optional.empty();
        // a name whose last label is numeric or hex-looking is an address in disguise
        String last = labels[labels.length - 1];
        if (last.chars().allMatch(Character::isDigit) || last.startsWith("0x")) return Optional.empty();
        return Optional.of(host);
    }

    public static String require(String raw, String what) {
        return normalize(raw).orElseThrow(() -> new PaddockException(ErrorCode.INVALID_HOST,
                what + " '" + Text.clip(raw, 80) + "' is not a valid host name or IP address"));
    }

    public static boolean isIpLiteral(String canonical) {
        return canonical.indexOf(':') >= 0 || DOTTED_QUAD.matcher(canonical).matches();
    }

    /** The address of a canonical IP literal (never consults DNS). */
    public static InetAddress literalAddress(String canonical) {
        return InetAddress.ofLiteral(canonical);
    }

    /** How the host is written inside a URL or authority ({@code [::1]} for IPv6). */
    public static String forAuthority(String canonical) {
        return canonical.indexOf(':') >= 0 ? "[" + canonical + "]" : canonical;
    }

    private static Optional<String> ipv6(String host) {
        if (!IPV6_CHARS.matcher(host).matches()) return Optional.empty();
        try {
            InetAddress address = InetAddress.ofLiteral(host);
            return Optional.of(address.getHostAddress().toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
