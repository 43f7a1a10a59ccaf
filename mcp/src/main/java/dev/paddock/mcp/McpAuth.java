package dev.paddock.mcp;

import dev.paddock.access.Principal;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;

/**
 * How the authenticated caller travels from the HTTP request to a tool handler: {@link AuthenticatingServlet} puts
 * the {@link Principal} on the request, the transport's context extractor copies it into the MCP transport context,
 * and handlers read it back. A handler without a principal refuses the call (fail closed).
 */
final class McpAuth {
    static final String REQUEST_ATTRIBUTE = "dev.paddock.mcp.principal";
    static final String CONTEXT_KEY = "paddock.principal";

    private McpAuth() {}

    /** The API key of a request: {@code x-api-key}, else {@code Authorization: Bearer}. */
    static String apiKey(HttpServletRequest req) {
        String key = req.getHeader("x-api-key");
        if (key != null && !key.isBlank()) return key.trim();
        String auth = req.getHeader("Authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) return auth.substring(7).trim();
        return null;
    }

    static McpTransportContext context(HttpServletRequest req) {
        Object p = req.getAttribute(REQUEST_ATTRIBUTE);
        return p instanceof Principal ? McpTransportContext.create(Map.of(CONTEXT_KEY, p)) : McpTransportContext.EMPTY;
    }

    static Principal principal(McpSyncServerExchange exchange) {
        Object p = exchange == null || exchange.transportContext() == null ? null : exchange.transportContext().get(CONTEXT_KEY);
        if (p instanceof Principal principal) return principal;
        throw new McpToolException("this call carries no authenticated API key; reconnect with x-api-key");
    }
}
