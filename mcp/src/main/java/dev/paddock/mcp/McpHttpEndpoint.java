package dev.paddock.mcp;

import dev.paddock.access.ApiKeys;
import dev.paddock.browser.BrowserService;
import dev.paddock.host.RuntimeHost;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

/**
 * The MCP server over streamable HTTP at {@code /mcp}, mounted into the Jetty servlet context the REST API runs in
 * (one port). Every request must carry a Paddock API key ({@code x-api-key} or {@code Authorization: Bearer});
 * tool calls act for that key's tenant. Call {@link #close()} when the HTTP server stops.
 */
public final class McpHttpEndpoint implements AutoCloseable {
    public static final String PATH = "/mcp";
    private final ApiKeys keys;
    private final long maxBodyBytes;
    private final HttpServletStreamableServerTransportProvider transport;
    private final McpSyncServer server;

    /** {@code maxBodyBytes} caps a request body, like the REST API's JSON bodies. */
    public McpHttpEndpoint(RuntimeHost host, BrowserService browser, ApiKeys keys, String version, long maxBodyBytes) {
        this.keys = keys;
        this.maxBodyBytes = maxBodyBytes;
        this.transport = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(PaddockMcpServer.MAPPER)
                .mcpEndpoint(PATH)
                .maxRequestSize((int) Math.min(Integer.MAX_VALUE, maxBodyBytes))
                .contextExtractor(McpAuth::context)
                .build();
        this.server = PaddockMcpServer.create(transport, host, browser, version);
    }

    /** Adds the endpoint to a servlet context, e.g. from Javalin's {@code config.jetty.modifyServletContextHandler}. */
    public void mount(ServletContextHandler context) {
        ServletHolder holder = new ServletHolder("paddock-mcp", new AuthenticatingServlet(keys, transport, maxBodyBytes));
        holder.setAsyncSupported(true);
        context.addServlet(holder, PATH);
    }

    @Override
    public void close() {
        server.closeGracefully();
    }
}
