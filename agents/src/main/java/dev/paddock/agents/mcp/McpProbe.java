package dev.paddock.agents.mcp;

/**
 * What probing an MCP server with a credential found: {@code valid} (it took it), {@code invalid} (it refused it with
 * 401 or 403) or {@code unknown} (it could not be reached or used); {@code failedMethod} is the MCP request that
 * failed, null when none did or none was sent.
 */
public record McpProbe(String status, String failedMethod) {
    public static final String VALID = "valid";
    public static final String INVALID = "invalid";
    public static final String UNKNOWN = "unknown";
}
