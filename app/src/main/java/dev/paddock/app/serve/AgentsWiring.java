package dev.paddock.app.serve;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.ManagedAgents;
import dev.paddock.agents.PackageMirrors;
import dev.paddock.agents.ResourceSettings;
import dev.paddock.agents.mcp.McpSettings;
import dev.paddock.egress.policy.AddressGuard;
import dev.paddock.egress.vault.Vault;
import dev.paddock.host.RuntimeHost;
import dev.paddock.store.JdbcStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the Managed Agents layer from the serve settings; it is closed with the other started parts. */
final class AgentsWiring {
    private static final Logger log = LoggerFactory.getLogger(AgentsWiring.class);

    private static final Duration SESSION_EVENT_POLL = Duration.ofMillis(250);

    private AgentsWiring() {}

    static ManagedAgents start(ServeSettings s, RuntimeHost host, JdbcStore store, Vault vault, List<AutoCloseable> started) {
        AgentsConfig config = AgentsConfig.defaults().withModel(s.modelBaseUrl(), s.modelApiKey())
                .withSandboxFree(s.allowSandboxFree(), "subprocess")
                .withPackageMirrors(new PackageMirrors(s.packagesPipIndexUrl(), s.packagesNpmRegistry(), s.packagesAptSources()))
                .withModelPrices(s.modelPrices());
        config = config.withModelRetry(s.modelRetryBudget(), config.modelRetryBackoff());
        if (s.allowSandboxFree()) {
            log.warn("allow_sandbox_free is on: sessions in environments of type 'none' run tools on this host without isolation");
        }
        if (s.mcpAllowPrivateHosts()) {
            log.warn("mcp_allow_private_hosts is on: agents' MCP servers may be on private, loopback and link-local addresses of this network");
        }
        ResourceSettings resources = new ResourceSettings(s.githubBaseUrl(), new VaultResourceSecrets(vault), AddressGuard::blockReason);
        ManagedAgents agents = new ManagedAgents(host, store.agents(), config, Clock.systemUTC(), null, new McpSettings(vault, s.mcpAllowPrivateHosts()),
                resources);
        started.add(agents);
        // nodes of a cluster: a client following a session here sees the events other nodes append
        if (store.sharable()) agents.events().followStore(SESSION_EVENT_POLL);
        return agents;
    }
}
