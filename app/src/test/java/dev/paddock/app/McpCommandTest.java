package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.app.serve.PaddockApp;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** The real {@code paddock mcp} process, driven by the MCP SDK's stdio client, against a running Paddock server. */
class McpCommandTest {
    @TempDir Path dataDir;
    PaddockApp app;
    String key;

    @BeforeEach
    void start() throws Exception {
        app = TestServer.start(dataDir);
        key = app.createdAdminKey().orElseGet(() -> read(dataDir.resolve("admin.key")));
    }

    @AfterEach
    void stop() {
        app.close();
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> command(String... args) {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp == null || cp.isBlank()) cp = System.getProperty("java.class.path");
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", cp, "dev.paddock.app.Main", "mcp"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static String text(CallToolResult r) {
        return ((TextContent) r.content().getFirst()).text();
    }

    @Test
    void claudeCodeStyleStdioSessionCreatesRunsAndDeletesASandbox() {
        List<String> cmd = command("--url", app.url(), "--api-key", key);
        ServerParameters params = ServerParameters.builder(cmd.getFirst()).args(cmd.subList(1, cmd.size())).build();
        StdioClientTransport transport = new StdioClientTransport(params, new JacksonMcpJsonMapper(JsonMapper.builder().build()));
        try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(30)).build()) {
            client.initialize();
            assertThat(client.listTools().tools()).extracting(Tool::name)
                    .contains("create_sandbox", "list_sandboxes", "delete_sandbox", "exec", "read_file", "write_file", "list_files",
                            "bash", "read", "write", "edit", "glob", "grep");
            CallToolResult created = client.callTool(new CallToolRequest("create_sandbox", Map.of()));
            assertThat(created.isError()).as(text(created)).isFalse();
            String id = JsonMapper.builder().build().readTree(text(created)).get("id").asString();
            CallToolResult wrote = client.callTool(new CallToolRequest("write", Map.of("sandbox_id", id, "file_path", "a.txt", "content", "via stdio")));
            assertThat(text(wrote)).isEqualTo("wrote 9 bytes to a.txt");
            CallToolResult ran = client.callTool(new CallToolRequest("bash", Map.of("sandbox_id", id, "command", "cat a.txt")));
            assertThat(text(ran)).isEqualTo("via stdio");
            CallToolResult bad = client.callTool(new CallToolRequest("bash", Map.of("sandbox_id", id, "timeout_ms", "soon", "command", "true")));
            assertThat(bad.isError()).isTrue();
            assertThat(text(bad)).isEqualTo("bash: timeout_ms must be an integer, got a string");
            assertThat(client.callTool(new CallToolRequest("delete_sandbox", Map.of("sandbox_id", id))).isError()).isFalse();
        }
    }

    @Test
    void aRefusedKeyEndsWithExitCodeOneAndAMessage() throws Exception {
        Process p = new ProcessBuilder(command("--url", app.url(), "--api-key", "pdk_wrong-key-00000000000000000000")).start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(err).isEqualTo(1);
        assertThat(err).contains("refused the API key");
        assertThat(p.getInputStream().readAllBytes()).isEmpty();
    }
}
