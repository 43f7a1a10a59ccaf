package dev.paddock.agents.mcp;

/**
 * An MCP server could not be used: it could not be reached (or its address is refused), or it refused the
 * credential. The message says which and never carries the credential.
 */
public final class McpFailure extends RuntimeException {
    public enum Kind {
        CONNECTION("mcp_connection_failed_error"),
        AUTHENTICATION("mcp_authentication_failed_error");

        private final String errorType;

        Kind(String errorType) {
            this.errorType = errorType;
        }

        /** The {@code session.error} type the SDKs know. */
        public String errorType() {
            return errorType;
        }
    }

    private final Kind kind;
    private final String serverName;
    private final String method;

    public McpFailure(Kind kind, String serverName, String message) {
        this(kind, serverName, message, null);
    }

    /** {@code method}: the MCP request that failed ({@code initialize}, {@code tools/list}, …), or null before any. */
    public McpFailure(Kind kind, String serverName, String message, String method) {
        super(message, null, false, false);
        this.kind = kind;
        this.serverName = serverName;
        this.method = method;
    }

    public String method() {
        return method;
    }

    public Kind kind() {
        return kind;
    }

    public String serverName() {
        return serverName;
    }
}
