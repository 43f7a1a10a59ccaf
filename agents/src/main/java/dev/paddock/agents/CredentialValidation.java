package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.agents.mcp.McpProbe;
import dev.paddock.agents.mcp.McpSessions;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /v1/vaults/{id}/credentials/{id}/mcp_oauth_validate}: probes the credential's MCP server with its token
 * (initialize, then tools/list) and answers the SDK's {@code vault_credential_validation}. Paddock keeps no refresh
 * token, so {@code has_refresh_token} is false and {@code refresh} null; the failing step's HTTP response is not
 * kept, so {@code mcp_probe.http_response} is null.
 */
public final class CredentialValidation {
    private final VaultCredentialService credentials;
    private final McpSessions mcp;
    private final Clock clock;

    CredentialValidation(VaultCredentialService credentials, McpSessions mcp, Clock clock) {
        this.credentials = credentials;
        this.mcp = mcp;
        this.clock = clock;
    }

    public Map<String, Object> validate(Principal p, String vaultId, String id) {
        VaultCredentialService.Probed c = credentials.forProbe(p, vaultId, id);
        McpProbe probe = c.token().isEmpty() ? new McpProbe(McpProbe.INVALID, null) : mcp.probe(c.mcpServerUrl(), c.token().get());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "vault_credential_validation");
        m.put("credential_id", id);
        m.put("vault_id", vaultId);
        m.put("status", probe.status());
        m.put("has_refresh_token", false);
        m.put("refresh", null);
        if (probe.failedMethod() == null) {
            m.put("mcp_probe", null);
        } else {
            Map<String, Object> failed = new LinkedHashMap<>();
            failed.put("method", probe.failedMethod());
            failed.put("http_response", null);
            m.put("mcp_probe", failed);
        }
        m.put("validated_at", Times.iso(clock.instant()));
        return m;
    }
}
