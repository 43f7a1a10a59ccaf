package dev.paddock.mcp;

import dev.paddock.host.ApiKeys;
import dev.paddock.host.Principal;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Lets a request through to the MCP transport only with a valid Paddock API key, and records whose key it was.
 * A missing or unknown key gets a 401 in the API's error shape, before any MCP processing.
 */
final class AuthenticatingServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient ApiKeys keys;
    private final HttpServlet delegate;

    AuthenticatingServlet(ApiKeys keys, HttpServlet delegate) {
        this.keys = keys;
        this.delegate = delegate;
    }

    @Override
    public void init(ServletConfig config) throws ServletException {
        super.init(config);
        delegate.init(config);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        String key = McpAuth.apiKey(req);
        Optional<Principal> principal = key == null ? Optional.empty() : keys.authenticate(key);
        if (principal.isEmpty()) {
            String why = key == null ? "missing API key: send it in the x-api-key header (or Authorization: Bearer)"
                    : "invalid API key: the key is unknown or was revoked";
            resp.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
            resp.setContentType("application/json");
            resp.setHeader("Cache-Control", "no-store");
            resp.getOutputStream().write(("{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\""
                    + why + "\"}}").getBytes(StandardCharsets.UTF_8));
            return;
        }
        req.setAttribute(McpAuth.REQUEST_ATTRIBUTE, principal.get());
        delegate.service(req, resp);
    }

    @Override
    public void destroy() {
        delegate.destroy();
        super.destroy();
    }
}
