package dev.paddock.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MCP SDK's stdio client against the bridge running as a separate process, forwarding to a live /mcp endpoint. */
class McpStdioTest {
    @TempDir Path dataDir;
    McpTestServer server;

    @BeforeEach
    void start() {
        server = new McpTestServer(dataDir);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Test
    void listsAndCallsTheToolsOverStdio() {
        ServerParameters params = ServerParameters.builder(java())
                .args("-cp", System.getProperty("java.class.path"), McpStdioBridge.class.getName())
                .addEnvVar("PADDOCK_URL", server.baseUrl())
                .addEnvVar("PADDOCK_API_KEY", server.aliceKey)
                .build();
        StdioClientTransport transport = new StdioClientTransport(params, PaddockMcpServer.MAPPER);
        try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(30)).build()) {
            client.initialize();
            assertThat(client.getServerInfo().name()).isEqualTo("paddock");
            McpScenario.runRoundTrip(client);
        }
    }

    @Test
    void aWrongKeyStopsTheBridgeWithAClearMessage() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"), McpStdioBridge.class.getName());
        pb.environment().put("PADDOCK_URL", server.baseUrl());
        pb.environment().put("PADDOCK_API_KEY", "pdk_wrong-key-0000000000000000000");
        Process p = pb.start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(err).contains("paddock mcp: ").contains("refused the API key");
        assertThat(p.getInputStream().readAllBytes()).as("nothing but MCP on stdout").isEmpty();
    }
}
