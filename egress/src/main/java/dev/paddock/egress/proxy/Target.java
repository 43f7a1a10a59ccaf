package dev.paddock.egress.proxy;

import dev.paddock.core.egress.HostName;
import java.util.List;
import java.util.Locale;

/**
 * Where a request goes: canonical host, port, the origin-form target to send upstream, and the URL written to
 * the audit log (no userinfo, no query string).
 */
record Target(String host, int port, String originForm, String auditUrl) {

    /** An absolute {@code http://} request target, as a forward proxy receives it. */
    static Target absoluteHttp(String target) throws ProtocolException {
        String lower = target.toLowerCase(Locale.ROOT);
        if (lower.startsWith("https://")) {
            throw new ProtocolException(400, "https_needs_connect", "send https:// requests through CONNECT (set HTTPS_PROXY)");
        }
        if (!lower.startsWith("http://")) {
            throw new ProtocolException(400, "not_absolute_url", "this is a forward proxy: the request target must be an absolute http:// URL (set HTTP_PROXY)");
        }
        return withAuthority(target.substring(7), "http", 80);
    }

    /** A request inside an intercepted TLS tunnel: origin-form, or an absolute https URL naming the tunnel's own destination. */
    static Target insideTunnel(String target, String host, int port) throws ProtocolException {
        String lower = target.toLowerCase(Locale.ROOT);
        if (lower.startsWith("https://")) {
            Target t = withAuthority(target.substring(8), "https", 443);
            if (!t.host.equals(host) || t.port != port) {
                throw new ProtocolException(400, "tunnel_host_mismatch", "a request inside a tunnel must go to the tunnel's host");
            }
            return t;
        }
        if (!target.startsWith("/")) throw new ProtocolException(400, "malformed_request_line", "the request target must start with '/'");
        if (target.indexOf('#') >= 0) throw new ProtocolException(400, "malformed_request_line", "a request target must not contain '#'");
        return new Target(host, port, target, url("https", host, port, 443, target));
    }

    /**
     * Inside an intercepted tunnel every {@code Host} header must name the tunnel's own host (a port, when given,
     * its port): the request only ever goes to the CONNECT target, so a header naming another host is refused
     * rather than silently rewritten.
     */
    static void requireHostHeaders(List<String> values, String host, int port) throws ProtocolException {
        for (String value : values) {
            Target t;
            try {
                t = parseAuthority(value.strip(), port, "https", "/");
            } catch (ProtocolException e) {
                throw new ProtocolException(400, "tunnel_host_mismatch", "the Host header is not a valid host; it must name the tunnel's host");
            }
            if (!t.host.equals(host) || t.port != port) {
                throw new ProtocolException(400, "tunnel_host_mismatch", "a request inside a tunnel must go to the tunnel's host; its Host header names another");
            }
        }
    }

    /** The {@code host:port} authority of a CONNECT request; the port is required. */
    static Target connectAuthority(String authority) throws ProtocolException {
        if (authority.indexOf('/') >= 0 || authority.indexOf('@') >= 0) {
            throw new ProtocolException(400, "malformed_connect", "CONNECT needs a target of the form host:port");
        }
        Target t = parseAuthority(authority, -1, "https", "");
        return new Target(t.host, t.port, null, null);
    }

    private static Target withAuthority(String rest, String scheme, int defaultPort) throws ProtocolException {
        if (rest.indexOf('#') >= 0) throw new ProtocolException(400, "malformed_request_line", "a request target must not contain '#'");
        int end = rest.length();
        for (int i = 0; i < rest.length(); i++) {
            char c = rest.charAt(i);
            if (c == '/' || c == '?') { end = i; break; }
        }
        String authority = rest.substring(0, end);
        String path = rest.substring(end);
        if (path.isEmpty()) path = "/";
        else if (path.startsWith("?")) path = "/" + path;
        if (authority.indexOf('@') >= 0) {
            throw new ProtocolException(400, "userinfo_in_url", "credentials in the URL (user:password@) are not allowed; send an Authorization header");
        }
        return parseAuthority(authority, defaultPort, scheme, path);
    }

    private static Target parseAuthority(String authority, int defaultPort, String scheme, String path) throws ProtocolException {
        String hostPart = authority;
        String portPart = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) throw new ProtocolException(400, "invalid_host", "missing ']' in an IPv6 address");
            hostPart = authority.substring(0, close + 1);
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) throw new ProtocolException(400, "invalid_host", "unexpected text after the IPv6 address");
                portPart = after.substring(1);
            }
        } else {
            int colon = authority.lastIndexOf(':');
            if (colon >= 0) {
                hostPart = authority.substring(0, colon);
                portPart = authority.substring(colon + 1);
            }
        }
        String host = HostName.normalize(hostPart)
                .orElseThrow(() -> new ProtocolException(400, "invalid_host", "the destination is not a valid host name or IP address"));
        int port;
        if (portPart == null || portPart.isEmpty()) {
            if (defaultPort < 0) throw new ProtocolException(400, "malformed_connect", "CONNECT needs a target of the form host:port");
            port = defaultPort;
        } else {
            if (portPart.length() > 5 || !portPart.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new ProtocolException(400, "invalid_port", "the port must be a number from 1 to 65535");
            }
            port = Integer.parseInt(portPart);
            if (port < 1 || port > 65535) throw new ProtocolException(400, "invalid_port", "the port must be a number from 1 to 65535");
        }
        return new Target(host, port, path, url(scheme, host, port, scheme.equals("https") ? 443 : 80, path));
    }

    String authority() {
        return HostName.forAuthority(host) + ":" + port;
    }

    String hostHeader(int defaultPort) {
        return port == defaultPort ? HostName.forAuthority(host) : authority();
    }

    private static String url(String scheme, String host, int port, int defaultPort, String path) {
        int q = path.indexOf('?');
        String noQuery = q >= 0 ? path.substring(0, q) : path;
        String hostPart = HostName.forAuthority(host) + (port == defaultPort ? "" : ":" + port);
        return scheme + "://" + hostPart + noQuery;
    }
}
