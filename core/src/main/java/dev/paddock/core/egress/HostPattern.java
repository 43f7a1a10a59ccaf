package dev.paddock.core.egress;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;

import java.util.Set;

/**
 * One {@code allowed_hosts} entry: an exact host ({@code api.example.com}), a wildcard
 * ({@code *.example.com}, which matches any depth of subdomain but not {@code example.com} itself) or an IP
 * literal, optionally with {@code :port}. Without a port an entry covers the web ports 80 and 443 only; write
 * the port to allow anything else.
 */
public record HostPattern(String host, boolean wildcard, int port) {
    /** Ports an entry without an explicit port covers. */
    public static final Set<Integer> DEFAULT_PORTS = Set.of(80, 443);
    /** Port value meaning "no explicit port". */
    public static final int ANY_WEB_PORT = 0;

    public HostPattern {
        if (port < 0 || port > 65535) throw new PaddockException(ErrorCode.INVALID_ALLOWED_HOST, "port must be 1-65535");
    }

    /** Parses and validates one entry; the error names the entry and what is wrong with it. */
    public static HostPattern parse(String entry) {
        if (entry == null || entry.isBlank()) {
            throw new PaddockException(ErrorCode.INVALID_ALLOWED_HOST, "allowed_hosts entries must not be empty");
        }
        String text = entry.strip();
        if (text.contains("://") || text.contains("/") || text.contains("@") || text.contains("?")) {
            throw invalid(entry, "write a host name with an optional port, not a URL (e.g. api.example.com or api.example.com:8443)");
        }
        String hostPart = text;
        int port = ANY_WEB_PORT;
        int colon = portSeparator(text);
        if (colon >= 0) {
            hostPart = text.substring(0, colon);
            port = parsePort(entry, text.substring(colon + 1));
        }
        boolean wildcard = false;
        if (hostPart.startsWith("*.")) {
            wildcard = true;
            hostPart = hostPart.substring(2);
        }
        if (hostPart.contains("*")) throw invalid(entry, "a wildcard is only allowed as the whole first label, as in *.example.com");
        String host = HostName.normalize(hostPart).orElseThrow(() -> invalid(entry, "not a valid host name or IP address"));
        if (wildcard && HostName.isIpLiteral(host)) throw invalid(entry, "wildcards cannot be combined with an IP address");
        if (wildcard && !host.contains(".")) throw invalid(entry, "a wildcard needs at least two labels after it, as in *.example.com");
        return new HostPattern(host, wildcard, port);
    }

    /** True when this entry covers {@code canonicalHost} (as produced by {@link HostName}) at {@code port}. */
    public boolean matches(String canonicalHost, int port) {
        boolean portOk = this.port == ANY_WEB_PORT ? DEFAULT_PORTS.contains(port) : this.port == port;
        if (!portOk) return false;
        return wildcard ? canonicalHost.endsWith("." + host) : canonicalHost.equals(host);
    }

    /** True when this entry names {@code canonicalHost} on any port (used for credential rules). */
    public boolean matchesHost(String canonicalHost) {
        return wildcard ? canonicalHost.endsWith("." + host) : canonicalHost.equals(host);
    }

    @Override
    public String toString() {
        String h = (wildcard ? "*." : "") + HostName.forAuthority(host);
        return port == ANY_WEB_PORT ? h : h + ":" + port;
    }

    private static int portSeparator(String text) {
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) throw invalid(text, "missing ']' after the IPv6 address");
            if (close == text.length() - 1) return -1;
            if (text.charAt(close + 1) != ':') throw invalid(text, "expected ':port' after ']'");
            return close + 1;
        }
        int first = text.indexOf(':');
        if (first < 0) return -1;
        if (text.indexOf(':', first + 1) >= 0) throw invalid(text, "write IPv6 addresses in brackets, as in [2001:db8::1]:443");
        return first;
    }

    private static int parsePort(String entry, String digits) {
        if (digits.isEmpty() || digits.length() > 5 || !digits.chars().allMatch(Character::isDigit)) {
            throw invalid(entry, "the port must be a number from 1 to 65535");
        }
        int port = Integer.parseInt(digits);
        if (port < 1 || port > 65535) throw invalid(entry, "the port must be a number from 1 to 65535");
        return port;
    }

    private static PaddockException invalid(String entry, String why) {
        return new PaddockException(ErrorCode.INVALID_ALLOWED_HOST, "allowed_hosts entry '" + Text.clip(entry, 80) + "': " + why);
    }
}
