package dev.paddock.mcp;

import dev.paddock.core.Text;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ListToolsResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code paddock mcp}: an MCP server on stdin/stdout that forwards every tool call to a running Paddock server's
 * {@code /mcp} endpoint with the caller's API key. The tools are those the server lists, so stdio and HTTP clients
 * see exactly the same set, and every call is authenticated and tenant-scoped by the server.
 */
public final class McpStdioBridge implements AutoCloseable {
    private final McpSyncClient upstream;
    private final String endpoint;

    /** @param baseUrl the Paddock server, e.g. {@code http://127.0.0.1:7070} */
    public McpStdioBridge(String baseUrl, String apiKey, String version) {
        this.endpoint = baseUrl.replaceAll("/+$", "") + McpHttpEndpoint.PATH;
        URI base = URI.create(baseUrl.replaceAll("/+$", "") + "/");
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(base.toString())
                .endpoint(McpHttpEndpoint.PATH)
                .jsonMapper(PaddockMcpServer.MAPPER)
                .connectTimeout(Duration.ofSeconds(10))
                .httpRequestCustomizer((builder, method, uri, body, context) -> {
                    if (apiKey != null) builder.header("x-api-key", apiKey);
                })
                .build();
        this.upstream = McpClient.sync(transport)
                .clientInfo(new io.modelcontextprotocol.spec.McpSchema.Implementation("paddock-mcp-stdio", version))
                .requestTimeout(Duration.ofMinutes(65))
                .build();
    }

    /**
     * Connects to the server, then serves MCP on {@code in}/{@code out} until {@code in} ends.
     *
     * @throws BridgeException when the server cannot be reached or refuses the key
     */
    public void serve(InputStream in, OutputStream out) throws InterruptedException {
        List<Tool> tools = connect();
        CountDownLatch ended = new CountDownLatch(1);
        StdioServerTransportProvider stdio = new StdioServerTransportProvider(PaddockMcpServer.MAPPER, new EndSignallingInput(in, ended), out);
        List<SyncToolSpecification> specs = new ArrayList<>();
        for (Tool tool : tools) {
            specs.add(SyncToolSpecification.builder().tool(tool).callHandler((exchange, request) -> forward(request)).build());
        }
        McpSyncServer server = McpServer.sync(stdio)
                .serverInfo(upstream.getServerInfo())
                .instructions(upstream.getServerInstructions())
                .capabilities(ServerCapabilities.builder().tools(false).build())
                .jsonMapper(PaddockMcpServer.MAPPER)
                .validateToolInputs(false)
                .tools(specs)
                .build();
        try {
            ended.await();
        } finally {
            server.closeGracefully();
        }
    }

    private List<Tool> connect() {
        try {
            upstream.initialize();
            List<Tool> tools = new ArrayList<>();
            String cursor = null;
            do {
                ListToolsResult page = upstream.listTools(cursor);
                tools.addAll(page.tools());
                cursor = page.nextCursor();
            } while (cursor != null);
            return tools;
        } catch (RuntimeException e) {
            throw new BridgeException(describe(e));
        }
    }

    private CallToolResult forward(io.modelcontextprotocol.spec.McpSchema.CallToolRequest request) {
        try {
            return upstream.callTool(request);
        } catch (RuntimeException e) {
            return McpTools.error(request.name() + ": the Paddock server did not answer: " + describe(e));
        }
    }

    private String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String name = t.getClass().getSimpleName();
            if (name.contains("Authorization") || String.valueOf(t.getMessage()).contains("401")) {
                return "the server at " + endpoint + " refused the API key (401)";
            }
            if (t instanceof ConnectException) return "cannot connect to " + endpoint + "; is `paddock serve` running?";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : Text.clip(e.getMessage(), 300);
    }

    @Override
    public void close() {
        upstream.closeGracefully();
    }

    /**
     * Stand-alone entry (the CLI's {@code paddock mcp} is the usual one): the server and key come from
     * {@code PADDOCK_URL} and {@code PADDOCK_API_KEY}. Exits 1 with a message on stderr when it cannot start.
     */
    public static void main(String[] args) throws InterruptedException {
        String url = System.getenv().getOrDefault("PADDOCK_URL", "http://127.0.0.1:7070");
        try (McpStdioBridge bridge = new McpStdioBridge(url, System.getenv("PADDOCK_API_KEY"), "dev")) {
            bridge.serve(System.in, System.out);
        } catch (BridgeException e) {
            System.err.println("paddock mcp: " + e.getMessage());
            System.exit(1);
        }
        System.exit(0);
    }

    /** The bridge could not start; the message says why, for the CLI to print. */
    public static final class BridgeException extends RuntimeException {
        BridgeException(String message) {
            super(message, null, false, false);
        }
    }

    /** Counts the latch down when the client closes stdin (end of stream or a read error). */
    private static final class EndSignallingInput extends FilterInputStream {
        private final CountDownLatch ended;

        EndSignallingInput(InputStream in, CountDownLatch ended) {
            super(in);
            this.ended = ended;
        }

        @Override
        public int read() throws IOException {
            return track(() -> super.read());
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return track(() -> super.read(b, off, len));
        }

        private interface Read { int run() throws IOException; }

        private int track(Read r) throws IOException {
            try {
                int n = r.run();
                if (n < 0) ended.countDown();
                return n;
            } catch (IOException e) {
                ended.countDown();
                throw e;
            }
        }
    }
}
