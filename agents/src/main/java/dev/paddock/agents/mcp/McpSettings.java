package dev.paddock.agents.mcp;

import dev.paddock.core.egress.SecretCipher;

/**
 * What the agent loop needs to call agents' MCP servers: the cipher that opens vault credentials (null: this server
 * has no vault key, so it stores no credentials), and whether an MCP URL may resolve to a private, loopback or
 * link-local address ({@code mcp_allow_private_hosts}; cloud metadata addresses are refused even then).
 */
public record McpSettings(SecretCipher credentialCipher, boolean allowPrivateHosts) {
    public static final McpSettings NONE = new McpSettings(null, false);
}
