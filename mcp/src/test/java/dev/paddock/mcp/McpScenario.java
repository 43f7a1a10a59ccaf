package dev.paddock.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** The round trip every transport must carry: list tools, then create → exec → write → read → toolset → delete. */
final class McpScenario {
    static final List<String> TOOL_NAMES = List.of("create_sandbox", "list_sandboxes", "delete_sandbox", "exec", "read_file",
            "write_file", "list_files", "watch_files", "bash", "read", "write", "edit", "glob", "grep",
            "create_browser_sandbox", "browser_action", "browser_script");

    private McpScenario() {}

    static CallToolResult call(McpSyncClient client, String tool, Map<String, Object> args) {
        return client.callTool(new CallToolRequest(tool, args));
    }

    static String text(CallToolResult r) {
        assertThat(r.content()).hasSize(1);
        return ((TextContent) r.content().getFirst()).text();
    }

    static JsonNode json(CallToolResult r) {
        assertThat(r.isError()).as(text(r)).isFalse();
        return McpTools.JSON.readTree(text(r));
    }

    static void runRoundTrip(McpSyncClient client) {
        assertThat(client.listTools().tools()).extracting(Tool::name).containsExactlyElementsOf(TOOL_NAMES);

        String id = json(call(client, "create_sandbox", Map.of())).get("id").asString();
        assertThat(id).startsWith("sbx_");

        JsonNode exec = json(call(client, "exec", Map.of("sandbox_id", id, "command", "echo out; echo err >&2; exit 4")));
        assertThat(exec.get("exit_code").asInt()).isEqualTo(4);
        assertThat(exec.get("stdout").asString()).isEqualTo("out\n");
        assertThat(exec.get("stderr").asString()).isEqualTo("err\n");

        JsonNode written = json(call(client, "write_file", Map.of("sandbox_id", id, "path", "dir/hello.txt", "content", "hello mcp\n")));
        assertThat(written.get("path").asString()).isEqualTo("/workspace/dir/hello.txt");
        CallToolResult read = call(client, "read_file", Map.of("sandbox_id", id, "path", "/workspace/dir/hello.txt"));
        assertThat(read.isError()).isFalse();
        assertThat(text(read)).isEqualTo("hello mcp\n");
        assertThat(json(call(client, "list_files", Map.of("sandbox_id", id, "path", "dir"))).get(0).get("name").asString()).isEqualTo("hello.txt");
        // a write two seconds from now, by a process of its own session, lands while the watch waits (one call at a time per session)
        assertThat(call(client, "exec", Map.of("sandbox_id", id,
                "command", "setsid sh -c 'sleep 2; echo x > dir/later.txt' </dev/null >/dev/null 2>&1 &")).isError()).isFalse();
        JsonNode changes = json(call(client, "watch_files", Map.of("sandbox_id", id, "path", "dir", "timeout_seconds", 30)));
        assertThat(changes.get(0).get("path").asString()).isEqualTo("/workspace/dir/later.txt");
        assertThat(changes.get(0).get("type").asString()).isEqualTo("created");

        CallToolResult edited = call(client, "edit", Map.of("sandbox_id", id, "file_path", "dir/hello.txt", "old_string", "mcp", "new_string", "tools"));
        assertThat(text(edited)).isEqualTo("edited dir/hello.txt (1 replacement)");
        CallToolResult bash = call(client, "bash", Map.of("sandbox_id", id, "command", "cat dir/hello.txt"));
        assertThat(bash.isError()).isFalse();
        assertThat(text(bash)).isEqualTo("hello tools");

        JsonNode listed = json(call(client, "list_sandboxes", Map.of()));
        assertThat(listed.get("data").get(0).get("id").asString()).isEqualTo(id);

        JsonNode deleted = json(call(client, "delete_sandbox", Map.of("sandbox_id", id)));
        assertThat(deleted.get("state").asString()).isEqualTo("terminated");
    }
}
