package dev.paddock.mcp;

import dev.paddock.access.ApiKeys;
import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The front of {@code /mcp}: only GET, POST and DELETE; only with a valid Paddock API key (recorded for the tool
 * handlers); a session only for the tenant that opened it; a POST body only within the JSON size limit and only when
 * it is JSON. Everything refused here, and every error the MCP transport answers, comes back in the API's error shape
 * with a code, never quoting the body or an exception. Request bodies are never logged.
 */
final class AuthenticatingServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(AuthenticatingServlet.class);
    private static final Set<String> METHODS = Set.of("GET", "POST", "DELETE");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final String SESSION_HEADER = "Mcp-Session-Id";

    private final transient ApiKeys keys;
    /** The tenant that opened each live MCP session. */
    private final transient Map<String, String> sessionTenants = new ConcurrentHashMap<>();
    private final HttpServlet delegate;
    private final long maxBodyBytes;

    AuthenticatingServlet(ApiKeys keys, HttpServlet delegate, long maxBodyBytes) {
        this.keys = keys;
        this.delegate = delegate;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void init(ServletConfig config) throws ServletException {
        super.init(config);
        delegate.init(config);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        if (!METHODS.contains(req.getMethod())) {
            resp.setHeader("Allow", "GET, POST, DELETE");
            McpHttpErrors.write(resp, 405, ErrorCode.METHOD_NOT_ALLOWED,
                    "/mcp takes GET, POST and DELETE (MCP streamable HTTP)");
            resp.setHeader("Allow", "GET, POST, DELETE");
            return;
        }
        String key = McpAuth.apiKey(req);
        Optional<Principal> principal = key == null ? Optional.empty() : keys.authenticate(key);
        if (principal.isEmpty()) {
            if (key == null) {
                McpHttpErrors.write(resp, 401, ErrorCode.MISSING_API_KEY,
                        "missing API key: send it in the x-api-key header (or Authorization: Bearer)");
            } else {
                McpHttpErrors.write(resp, 401, ErrorCode.INVALID_API_KEY,
                        "invalid API key: the key is unknown or was revoked");
            }
            return;
        }
        req.setAttribute(McpAuth.REQUEST_ATTRIBUTE, principal.get());
        String session = req.getHeader(SESSION_HEADER);
        String tenant = principal.get().tenantId();
        if (session != null && !tenant.equals(sessionTenants.getOrDefault(session, tenant))) {
            // another tenant's session is answered as one that does not exist: no use of it, no sign that it exists
            McpHttpErrors.forStatus(resp, 404);
            return;
        }
        HttpServletRequest request = req;
        if ("POST".equals(req.getMethod())) {
            byte[] body;
            try {
                body = McpBodyGuard.read(req, maxBodyBytes);
            } catch (McpBodyGuard.TooLarge e) {
                McpHttpErrors.write(resp, 413, ErrorCode.REQUEST_TOO_LARGE,
                        "the MCP request body is over this server's limit of " + maxBodyBytes + " bytes");
                return;
            } catch (IOException | RuntimeException e) {
                boolean timeout = causedBy(e, TimeoutException.class);
                McpHttpErrors.write(resp, timeout ? 408 : 400, timeout ? ErrorCode.REQUEST_TIMEOUT : ErrorCode.MALFORMED_BODY,
                        timeout ? "the request body stopped arriving before its end"
                                : "the request body could not be read: it is shorter than its Content-Length or its chunked encoding is malformed");
                return;
            }
            String charset = req.getCharacterEncoding();
            if (charset != null && !charset.equalsIgnoreCase("UTF-8") && !charset.equalsIgnoreCase("utf8")) {
                McpHttpErrors.write(resp, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE,
                        "send the MCP request as Content-Type: application/json in UTF-8");
                return;
            }
            JsonNode message;
            try {
                message = JSON.readTree(body);
            } catch (JacksonException e) {
                McpHttpErrors.write(resp, 400, ErrorCode.INVALID_JSON, "the MCP request body is not valid JSON"
                        + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")"));
                return;
            }
            if (!isJsonRpcMessage(message)) {
                // the transport would fail on it and log the whole body
                McpHttpErrors.write(resp, 400, ErrorCode.INVALID_MCP_REQUEST,
                        "the MCP request body must be one JSON-RPC 2.0 message: an object with \"jsonrpc\": \"2.0\" and a string "
                                + "\"method\" (a request or notification), or an \"id\" with a \"result\" or \"error\" (a response)");
                return;
            }
            request = McpBodyGuard.replay(req, body);
        }
        McpErrorResponse response = new McpErrorResponse(resp);
        try {
            delegate.service(request, response);
        } catch (IOException | ServletException | RuntimeException e) {
            if (resp.isCommitted()) throw e;
            log.warn("MCP {} failed: {}", req.getMethod(), e.getClass().getSimpleName());
            McpHttpErrors.forStatus(resp, 500);
            return;
        }
        response.finish();
        remember(session, tenant, req.getMethod(), resp);
    }

    /** Binds a session the transport just opened to its tenant; forgets one it ended or does not know. */
    private void remember(String session, String tenant, String method, HttpServletResponse resp) {
        String opened = resp.getHeader(SESSION_HEADER);
        if (session == null && opened != null) sessionTenants.put(opened, tenant);
        if (session != null && (resp.getStatus() == 404 || "DELETE".equals(method) && resp.getStatus() < 300)) sessionTenants.remove(session);
    }

    /** The shapes the transport can read: a request, a notification or a response, as one JSON object. */
    static boolean isJsonRpcMessage(JsonNode m) {
        if (m == null || !m.isObject() || !"2.0".equals(m.path("jsonrpc").asString(null))) return false;
        JsonNode id = m.get("id");
        boolean idOk = id == null || id.isString() || id.isIntegralNumber() && id.canConvertToLong();
        if (!idOk) return false;
        // method names are short; a long one would only be quoted back in "method not found"
        if (m.has("method")) return m.get("method").isString() && m.get("method").asString().length() <= 200 && (!m.has("params") || m.get("params").isObject() || m.get("params").isNull());
        return id != null && (m.has("result") || m.get("error") != null && m.get("error").isObject());
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) if (type.isInstance(t)) return true;
        return false;
    }

    @Override
    public void destroy() {
        delegate.destroy();
        super.destroy();
    }
}
