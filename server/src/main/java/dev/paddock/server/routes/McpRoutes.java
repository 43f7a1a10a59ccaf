package dev.paddock.server.routes;

import dev.paddock.mcp.McpHttpEndpoint;
import dev.paddock.server.RouteContext;
import dev.paddock.server.RouteModule;
import io.javalin.config.JavalinConfig;

/**
 * The MCP endpoint (streamable HTTP) at {@link McpHttpEndpoint#PATH} on the API's port: a servlet beside the
 * routes, which checks the API key itself. Closed with the server.
 */
public final class McpRoutes implements RouteModule {
    private final McpHttpEndpoint endpoint;

    public McpRoutes(McpHttpEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public void configure(JavalinConfig config) {
        config.jetty.modifyServletContextHandler(endpoint::mount);
    }

    @Override
    public void register(RouteContext context) {
        // no routes: the servlet answers /mcp
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
