package dev.paddock.agents.mcp;

import dev.paddock.core.egress.SecretValue;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Finds the credential a session sends to an MCP server: from its vaults, matched by the server's URL. */
@FunctionalInterface
public interface McpCredentialSource {
    /** A credential's token and when it expires (null: unknown). */
    record Token(String credentialId, SecretValue value, Instant expiresAt) {
        @Override
        public String toString() {
            return "Token[" + credentialId + ", redacted]";
        }
    }

    McpCredentialSource NONE = (tenantId, vaultIds, url) -> Optional.empty();

    Optional<Token> find(String tenantId, List<String> vaultIds, String url);
}
