package dev.paddock.agents.mcp;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;

/**
 * MCP server URLs as a vault credential and an agent's {@code mcp_servers} entry are matched: the same URL up to
 * the case of the scheme and host, a default port written out, and a trailing slash.
 */
public final class McpUrls {
    private McpUrls() {}

    /** An absolute http(s) URL with a host, or empty. */
    public static Optional<URI> parse(String url) {
        if (url == null) return Optional.empty();
        try {
            URI u = new URI(url);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) return Optional.empty();
            if (u.getHost() == null || u.getRawUserInfo() != null || u.getRawFragment() != null) return Optional.empty();
            return Optional.of(u);
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
    }

    /** The form two URLs are compared in; null when {@code url} is no usable http(s) URL. */
    public static String matchKey(String url) {
        return parse(url).map(u -> {
            String scheme = u.getScheme().toLowerCase(Locale.ROOT);
            int port = u.getPort();
            if (port == defaultPort(scheme)) port = -1;
            String path = u.getRawPath() == null ? "" : u.getRawPath();
            while (path.endsWith("/")) path = path.substring(0, path.length() - 1);
            String query = u.getRawQuery() == null ? "" : "?" + u.getRawQuery();
            return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + (port == -1 ? "" : ":" + port) + path + query;
        }).orElse(null);
    }

    static int defaultPort(String scheme) {
        return scheme.equals("https") ? 443 : 80;
    }
}
