package dev.paddock.mcp;

import dev.paddock.core.PaddockException;
import dev.paddock.access.Principal;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Builds MCP tool specifications whose handlers never let an exception reach the protocol layer: invalid
 * arguments and refused operations become tool errors ({@code isError: true}) the client's model can read.
 */
final class McpTools {
    private static final Logger log = LoggerFactory.getLogger(McpTools.class);
    static final JsonMapper JSON = JsonMapper.builder().build();

    @FunctionalInterface
    interface Handler {
        CallToolResult call(Principal caller, McpArgs args);
    }

    private McpTools() {}

    static SyncToolSpecification tool(String name, String description, Map<String, Object> schema, Handler handler) {
        Tool tool = Tool.builder().name(name).description(description).inputSchema(schema).build();
        return SyncToolSpecification.builder().tool(tool).callHandler((exchange, request) -> {
            try {
                return handler.call(McpAuth.principal(exchange), new McpArgs(name, request.arguments()));
            } catch (McpToolException e) {
                return error(e.getMessage());
            } catch (PaddockException e) {
                return error(name + ": " + e.getMessage());
            } catch (RuntimeException e) {
                // arguments may hold secrets: log the type only
                log.warn("MCP tool {} failed unexpectedly: {}", name, e.getClass().getName());
                return error(name + ": internal error (" + e.getClass().getSimpleName() + ")");
            }
        }).build();
    }

    static CallToolResult text(String text) {
        return CallToolResult.builder().addTextContent(text).isError(false).build();
    }

    /** A JSON answer, as text (what every client shows its model). */
    static CallToolResult json(Object value) {
        return CallToolResult.builder().addTextContent(JSON.writeValueAsString(value)).isError(false).build();
    }

    static CallToolResult error(String message) {
        return CallToolResult.builder().addTextContent(message).isError(true).build();
    }
}
