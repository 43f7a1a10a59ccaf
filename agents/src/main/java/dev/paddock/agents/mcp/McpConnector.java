package dev.paddock.agents.mcp;

import dev.paddock.core.Text;
import dev.paddock.core.egress.SecretValue;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens a connection to an MCP server over streamable HTTP: checks its address, sends the credential (if any) as
 * {@code Authorization: Bearer} on every request, initializes the session and lists the server's tools. Redirects are
 * not followed, so the credential goes to the configured URL only.
 */
final class McpConnector {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration INIT_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(5);
    /** More pages of tools than this is a server that never stops paging. */
    private static final int MAX_TOOL_PAGES = 50;

    private final McpAddressPolicy addresses;

    McpConnector(boolean allowPrivateHosts, McpAddressPolicy.Resolver resolver) {
        this.addresses = new McpAddressPolicy(allowPrivateHosts, resolver);
    }

    McpServerConnection connect(String serverName, String url, SecretValue token) {
        URI uri = McpUrls.parse(url).orElseThrow(() -> new McpFailure(McpFailure.Kind.CONNECTION, serverName,
                "MCP server '" + serverName + "' has no usable http(s) URL"));
        addresses.check(serverName, uri);
        String base = uri.getScheme() + "://" + uri.getRawAuthority();
        String endpoint = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(base)
                .endpoint(endpoint)
                .connectTimeout(CONNECT_TIMEOUT)
                // a redirect would carry the credential to a URL nobody checked
                .customizeClient(client -> client.followRedirects(HttpClient.Redirect.NEVER))
                .httpRequestCustomizer((request, httpMethod, target, body, context) -> {
                    if (token != null) request.header("Authorization", "Bearer " + token.reveal());
                })
                .build();
        McpSyncClient client = McpClient.sync(transport)
                .clientInfo(new McpSchema.Implementation("paddock", "1"))
                .initializationTimeout(INIT_TIMEOUT)
                .requestTimeout(REQUEST_TIMEOUT)
                .build();
        String method = "initialize";
        try {
            client.initialize();
            method = "tools/list";
            List<McpSchema.Tool> tools = new ArrayList<>();
            String cursor = null;
            for (int page = 0; page < MAX_TOOL_PAGES; page++) {
                McpSchema.ListToolsResult r = cursor == null ? client.listTools() : client.listTools(cursor);
                if (r.tools() != null) tools.addAll(r.tools());
                cursor = r.nextCursor();
                if (cursor == null || cursor.isEmpty()) break;
            }
            return new McpServerConnection(serverName, client, tools);
        } catch (RuntimeException e) {
            closeQuietly(client);
            throw failure(serverName, method, e);
        }
    }

    /**
     * What went wrong, from the client's exception: the server refused the credential (401 or 403) or could not be
     * used at all. Only the exception's own text is kept, which names the URL and status, never request headers.
     */
    static McpFailure failure(String serverName, String method, Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof McpHttpClientTransportAuthorizationException auth) {
                int status = auth.getResponseInfo() == null ? 401 : auth.getResponseInfo().statusCode();
                return new McpFailure(McpFailure.Kind.AUTHENTICATION, serverName, "MCP server '" + serverName + "' refused the credential on "
                        + method + " (HTTP " + status + "); add or update a credential for its URL in one of the session's vaults", method);
            }
            String m = t.getMessage();
            if (m != null && (m.contains("status code 401") || m.contains("status code 403") || m.contains("HTTP 401") || m.contains("HTTP 403"))) {
                return new McpFailure(McpFailure.Kind.AUTHENTICATION, serverName, "MCP server '" + serverName + "' refused the credential on "
                        + method + "; add or update a credential for its URL in one of the session's vaults", method);
            }
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String why = root.getMessage() == null || root.getMessage().isBlank() ? root.getClass().getSimpleName() : root.getMessage();
        return new McpFailure(McpFailure.Kind.CONNECTION, serverName, "MCP server '" + serverName + "' could not be used on " + method + ": "
                + Text.clip(why, 300), method);
    }

    private static void closeQuietly(McpSyncClient client) {
        try {
            client.close();
        } catch (RuntimeException ignored) {
            // nothing was opened, or the server is gone
        }
    }
}
