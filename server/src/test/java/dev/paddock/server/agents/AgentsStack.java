package dev.paddock.server.agents;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.ManagedAgents;
import dev.paddock.agents.mcp.McpSettings;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.access.ApiKeys;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.PaddockServer;
import dev.paddock.server.ServerConfig;
import dev.paddock.server.routes.agents.AgentsRoutes;
import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** A real Paddock with the Managed Agents API on loopback: SQLite, the subprocess driver, host, agents, server. */
final class AgentsStack implements AutoCloseable {
    final Path dataDir;
    final JdbcStore store;
    final RuntimeHost host;
    final ManagedAgents agents;
    final PaddockServer server;
    final String apiKey;
    final String baseUrl;

    AgentsStack(AgentsConfig config) {
        this(config, false);
    }

    /** {@code mcpAllowPrivateHosts}: agents' MCP servers may be on loopback (tests run them there). */
    AgentsStack(AgentsConfig config, boolean mcpAllowPrivateHosts) {
        try {
            dataDir = Files.createTempDirectory("paddock-agents-test");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        store = JdbcStore.openSqlite(dataDir.resolve("paddock.db"));
        host = new RuntimeHost(HostConfig.defaults(dataDir).withDefaultDriver("subprocess"), store,
                List.of(new SubprocessDriver(dataDir)), Clock.systemUTC());
        host.start();
        ApiKeys keys = new ApiKeys(store.apiKeys(), Clock.systemUTC());
        apiKey = keys.create(ApiKeys.DEFAULT_TENANT, "test", true).secret();
        Vault vault = new Vault(store.secrets(), VaultKey.fromDataDir(dataDir));
        agents = new ManagedAgents(host, store.agents(), config, Clock.systemUTC(), null, new McpSettings(vault, mcpAllowPrivateHosts));
        server = new PaddockServer(host, keys, ServerConfig.defaults().withPort(0), List.of(new AgentsRoutes(agents)));
        baseUrl = "http://127.0.0.1:" + server.start();
    }

    @Override
    public void close() {
        server.stop();
        agents.close();
        host.close();
        store.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temp dir; best effort
        }
    }
}
