package dev.paddock.server.agents;

import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real MCP server over streamable HTTP on loopback ({@code /mcp}), built with the MCP SDK's server side: it takes
 * only requests that carry {@code Authorization: Bearer <token>} (401 otherwise) and offers one tool, {@code lookup},
 * which answers {@code definition of <q>}. It records every Authorization header, the methods of the requests it
 * served, and every call it got.
 */
final class BearerMcpServer implements AutoCloseable {
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> calls = new CopyOnWriteArrayList<>();
    /** The HTTP methods of the requests that carried the right token, in order. */
    final List<String> methods = new CopyOnWriteArrayList<>();
    private final Server jetty;
    private final McpSyncServer mcp;
    private final int port;

    BearerMcpServer(String token) throws Exception {
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(new JacksonMcpJsonMapper(JsonMapper.builder().build())).mcpEndpoint("/mcp").build();
        Tool lookup = Tool.builder().name("lookup").description("Looks a word up in the glossary")
                .inputSchema(Map.of("type", "object", "properties", Map.of("q", Map.of("type", "string")), "required", List.of("q"))).build();
        mcp = McpServer.sync(transport).serverInfo("glossary", "1")
                .capabilities(ServerCapabilities.builder().tools(false).build())
                .immediateExecution(true)
                .tools(SyncToolSpecification.builder().tool(lookup).callHandler((exchange, request) -> {
                    calls.add(request.arguments());
                    return CallToolResult.builder().addTextContent("definition of " + request.arguments().get("q")).isError(false).build();
                }).build())
                .build();
        jetty = new Server(new InetSocketAddress("127.0.0.1", 0));
        ServletContextHandler context = new ServletContextHandler();
        ServletHolder holder = new ServletHolder(new HttpServlet() {
            @Override
            public void init(ServletConfig config) throws ServletException {
                super.init(config);
                transport.init(config);
            }

            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
                String auth = req.getHeader("Authorization");
                authorizations.add(auth == null ? "" : auth);
                if (!("Bearer " + token).equals(auth)) {
                    resp.sendError(401);
                    return;
                }
                methods.add(req.getMethod());
                transport.service(req, resp);
            }
        });
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/mcp");
        jetty.setHandler(context);
        jetty.start();
        port = ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    String url() {
        return "http://127.0.0.1:" + port + "/mcp";
    }

    @Override
    public void close() throws Exception {
        mcp.closeGracefully();
        jetty.stop();
    }
}
