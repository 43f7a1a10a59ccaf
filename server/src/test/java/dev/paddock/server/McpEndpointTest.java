package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The MCP endpoint is served at /mcp on the REST API's port, with the same API keys, next to a working REST API. */
class McpEndpointTest {
    TestServer t;

    @BeforeEach
    void start() {
        t = new TestServer();
    }

    @AfterEach
    void stop() {
        t.close();
    }

    private McpSyncClient client(String key) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + t.server.port())
                .endpoint("/mcp")
                .httpRequestCustomizer((b, method, uri, body, ctx) -> b.header("Authorization", "Bearer " + key))
                .build();
        return McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).initializationTimeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void mcpAndRestShareThePortAndTheKeys() {
        try (McpSyncClient mcp = client(t.adminKey)) {
            mcp.initialize();
            assertThat(mcp.listTools().tools()).extracting(Tool::name).contains("create_sandbox", "exec", "bash", "grep");
            CallToolResult created = mcp.callTool(new CallToolRequest("create_sandbox", Map.of()));
            assertThat(created.isError()).isFalse();
            String text = ((TextContent) created.content().getFirst()).text();
            String id = text.replaceAll(".*\"id\":\"(sbx_[a-z0-9]+)\".*", "$1");
            assertThat(t.admin.get("/v1/sandboxes/" + id).status()).as("the REST API sees the MCP-created sandbox").isEqualTo(200);
        }
        try (McpSyncClient wrong = client("pdk_wrong-wrong-wrong-wrong-wrong")) {
            assertThatThrownBy(wrong::initialize).isInstanceOf(RuntimeException.class);
        }
    }
}
