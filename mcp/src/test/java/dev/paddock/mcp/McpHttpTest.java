package dev.paddock.mcp;

import static dev.paddock.mcp.McpScenario.call;
import static dev.paddock.mcp.McpScenario.json;
import static dev.paddock.mcp.McpScenario.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MCP SDK's own client against the streamable HTTP endpoint at /mcp. */
class McpHttpTest {
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

    @Test
    void listsAndCallsTheToolsOverHttp() {
        try (McpSyncClient client = server.httpClient(server.aliceKey)) {
            client.initialize();
            assertThat(client.getServerInfo().name()).isEqualTo("paddock");
            McpScenario.runRoundTrip(client);
        }
    }

    @Test
    void aWrongOrMissingKeyIsRefused() throws Exception {
        try (McpSyncClient client = server.httpClient("pdk_not-a-real-key-000000000000")) {
            assertThatThrownBy(client::initialize).isInstanceOf(RuntimeException.class);
        }
        HttpResponse<String> raw = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/mcp"))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(raw.statusCode()).isEqualTo(401);
        assertThat(raw.body()).contains("authentication_error").contains("missing API key");
    }

    @Test
    void badArgumentsAreToolErrorsAndTheSessionGoesOn() {
        try (McpSyncClient client = server.httpClient(server.aliceKey)) {
            client.initialize();
            CallToolResult wrongType = call(client, "exec", Map.of("sandbox_id", 5, "command", "true"));
            assertThat(wrongType.isError()).isTrue();
            assertThat(text(wrongType)).isEqualTo("exec: sandbox_id must be a string");

            CallToolResult both = call(client, "exec", Map.of("sandbox_id", "sbx_x", "command", "true", "argv", java.util.List.of("true")));
            assertThat(text(both)).isEqualTo("exec: give either command (a shell line) or argv (an array), not both or neither");

            CallToolResult badId = call(client, "read_file", Map.of("sandbox_id", "not-an-id", "path", "x"));
            assertThat(badId.isError()).isTrue();
            assertThat(text(badId)).startsWith("read_file: ");

            CallToolResult unknownArg = call(client, "bash", Map.of("sandbox_id", "sbx_x", "cmd", "ls"));
            assertThat(unknownArg.isError()).isTrue();

            String id = json(call(client, "create_sandbox", Map.of())).get("id").asString();
            CallToolResult outside = call(client, "read", Map.of("sandbox_id", id, "file_path", "/etc/passwd"));
            assertThat(outside.isError()).isTrue();
            assertThat(text(outside)).contains("outside /workspace");
            CallToolResult missing = call(client, "edit", Map.of("sandbox_id", id, "file_path", "none.txt", "old_string", "a", "new_string", "b"));
            assertThat(text(missing)).isEqualTo("edit: no file or directory at 'none.txt'");

            assertThatThrownBy(() -> call(client, "no_such_tool", Map.of())).isInstanceOf(RuntimeException.class);
            assertThat(json(call(client, "list_sandboxes", Map.of())).get("data")).hasSize(1);
        }
    }

    @Test
    void eachKeySeesOnlyItsTenantsSandboxes() {
        try (McpSyncClient alice = server.httpClient(server.aliceKey); McpSyncClient bob = server.httpClient(server.bobKey)) {
            alice.initialize();
            bob.initialize();
            String id = json(call(alice, "create_sandbox", Map.of())).get("id").asString();
            assertThat(json(call(bob, "list_sandboxes", Map.of("include_ended", true))).get("data")).isEmpty();
            CallToolResult stolen = call(bob, "bash", Map.of("sandbox_id", id, "command", "echo hi"));
            assertThat(stolen.isError()).isTrue();
            assertThat(text(stolen)).isEqualTo("bash: sandbox '" + id + "' does not exist");
            assertThat(call(bob, "delete_sandbox", Map.of("sandbox_id", id)).isError()).isTrue();
            assertThat(json(call(alice, "list_sandboxes", Map.of())).get("data").get(0).get("state").asString()).isEqualTo("running");
        }
    }

    @Test
    void anotherTenantsSessionIdIsAnUnknownSession() throws Exception {
        try (McpSyncClient alice = server.httpClient(server.aliceKey)) {
            alice.initialize();
            json(call(alice, "create_sandbox", Map.of()));
        }
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> init = post(http, server.aliceKey, null,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
        String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
        post(http, server.aliceKey, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        // Bob replays Alice's session id with his own key: answered as a session that does not exist, whatever he sends
        HttpResponse<String> unknown = post(http, server.bobKey, "00000000-0000-0000-0000-000000000000",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        for (String body : java.util.List.of("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"list_sandboxes\",\"arguments\":{}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}")) {
            HttpResponse<String> asBob = post(http, server.bobKey, session, body);
            assertThat(asBob.statusCode()).isEqualTo(404).isEqualTo(unknown.statusCode());
            assertThat(asBob.body()).isEqualTo(unknown.body()).contains("mcp_session_not_found");
        }
        HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/mcp")).DELETE()
                .header("x-api-key", server.bobKey).header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(deleted.statusCode()).as("Bob cannot end Alice's session").isEqualTo(404);
        HttpResponse<String> asAlice = post(http, server.aliceKey, session,
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"list_sandboxes\",\"arguments\":{}}}");
        assertThat(asAlice.body()).contains("sbx_");
    }

    private HttpResponse<String> post(HttpClient http, String key, String session, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/mcp"))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("x-api-key", key).POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18");
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
