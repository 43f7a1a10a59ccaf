package dev.paddock.mcp;

/** A tool call that cannot be served as asked; the message becomes the text of an MCP tool error. */
final class McpToolException extends RuntimeException {
    McpToolException(String message) {
        super(message, null, false, false);
    }
}
