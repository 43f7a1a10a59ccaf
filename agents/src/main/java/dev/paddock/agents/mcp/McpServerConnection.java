package dev.paddock.agents.mcp;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** One MCP server the session's loop is connected to, with the tools it listed when it connected. */
final class McpServerConnection implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String serverName;
    private final McpSyncClient client;
    private final List<McpSchema.Tool> tools;

    McpServerConnection(String serverName, McpSyncClient client, List<McpSchema.Tool> tools) {
        this.serverName = serverName;
        this.client = client;
        this.tools = List.copyOf(tools);
    }

    String serverName() {
        return serverName;
    }

    List<McpSchema.Tool> tools() {
        return tools;
    }

    /**
     * Calls a tool. An error the server answers (unknown tool, bad input: a JSON-RPC error, or a result with
     * {@code isError}) is the tool's result; a broken connection or a refused credential is an {@link McpFailure}.
     */
    McpCallResult call(String tool, Map<String, Object> input) {
        McpSchema.CallToolResult result;
        try {
            result = client.callTool(new McpSchema.CallToolRequest(tool, input));
        } catch (McpError e) {
            return McpCallResult.error("MCP server '" + serverName + "' answered the call of " + tool + " with an error: " + e.getMessage());
        } catch (RuntimeException e) {
            throw McpConnector.failure(serverName, "tools/call", e);
        }
        return new McpCallResult(blocks(result), Boolean.TRUE.equals(result.isError()));
    }

    /** The result's content as the SDK's content blocks (text and images; other kinds are named, not carried). */
    private static List<Map<String, Object>> blocks(McpSchema.CallToolResult result) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (McpSchema.Content c : result.content() == null ? List.<McpSchema.Content>of() : result.content()) {
            switch (c) {
                case McpSchema.TextContent t -> out.add(McpCallResult.text(t.text()));
                case McpSchema.ImageContent i -> {
                    Map<String, Object> source = new LinkedHashMap<>();
                    source.put("type", "base64");
                    source.put("media_type", i.mimeType());
                    source.put("data", i.data());
                    Map<String, Object> image = new LinkedHashMap<>();
                    image.put("type", "image");
                    image.put("source", source);
                    out.add(image);
                }
                case McpSchema.EmbeddedResource r when r.resource() instanceof McpSchema.TextResourceContents text ->
                        out.add(McpCallResult.text(text.text()));
                default -> out.add(McpCallResult.text("[" + c.type() + " content omitted]"));
            }
        }
        if (out.isEmpty() && result.structuredContent() != null) out.add(McpCallResult.text(JSON.writeValueAsString(result.structuredContent())));
        return out;
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (RuntimeException e) {
            // the server may already be gone; nothing is left to release on this side
        }
    }
}
