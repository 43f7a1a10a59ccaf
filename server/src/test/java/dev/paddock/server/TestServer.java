package dev.paddock.server;

import dev.paddock.access.ApiKeys;
import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.ManagedAgents;
import dev.paddock.browser.BrowserService;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.UnavailableDriver;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.images.ImageCatalog;
import dev.paddock.images.ImageStore;
import dev.paddock.mcp.McpHttpEndpoint;
import dev.paddock.server.routes.ImageRoutes;
import dev.paddock.server.routes.McpRoutes;
import dev.paddock.server.routes.agents.AgentsRoutes;
import dev.paddock.server.routes.browser.BrowserRoutes;
import dev.paddock.server.routes.egress.EgressRoutes;
import dev.paddock.server.routes.egress.SecretRoutes;
import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A real Paddock stack on loopback for tests: SQLite store, the subprocess driver, the runtime host and the HTTP
 * server on a free port, plus an admin key of the default tenant.
 */
final class TestServer implements AutoCloseable {
    static final long UPLOAD_LIMIT = 4L << 20;

    final Path dataDir;
    final JdbcStore store;
    final RuntimeHost host;
    final ApiKeys keys;
    final PaddockServer server;
    final String adminKey;
    final Api admin;
    private ManagedAgents agents;

    TestServer() {
        this(ServerConfig.defaults().withPort(0).withLimits(ServerConfig.DEFAULT_MAX_JSON_BYTES, UPLOAD_LIMIT)
                .withConsoleResource("/test-console"));
    }

    TestServer(ServerConfig config) {
        this(config, false);
    }

    /** With {@code images}, the server serves {@code /v1/images} from {@code <dataDir>/images}. */
    TestServer(ServerConfig config, boolean images) {
        this(config, images, false);
    }

    /**
     * Every server has the browser routes and MCP, as {@code paddock serve} does. With {@code everything}, it also
     * serves the Managed Agents API, the vault and the egress audit log, so every route family of this module is there.
     */
    TestServer(ServerConfig config, boolean images, boolean everything) {
        try {
            dataDir = Files.createTempDirectory("paddock-server-test");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        store = JdbcStore.openSqlite(dataDir.resolve("paddock.db"));
        SubprocessDriver subprocess = new SubprocessDriver(dataDir);
        host = new RuntimeHost(HostConfig.defaults(dataDir).withDefaultDriver("subprocess"), store,
                List.of(subprocess, absentDriver(subprocess.conformance())), Clock.systemUTC());
        host.start();
        keys = new ApiKeys(store.apiKeys(), Clock.systemUTC());
        adminKey = keys.create(ApiKeys.DEFAULT_TENANT, "test admin", true).secret();
        BrowserService browser = new BrowserService(host);
        List<RouteModule> modules = new ArrayList<>(List.of(new BrowserRoutes(browser),
                new McpRoutes(new McpHttpEndpoint(host, browser, keys, config.version(), config.maxJsonBytes()))));
        if (images) modules.add(new ImageRoutes(new ImageCatalog(new ImageStore(dataDir.resolve("images")), store.sandboxes())));
        if (everything) {
            agents = new ManagedAgents(host, store.agents(), AgentsConfig.defaults(), Clock.systemUTC());
            modules.add(new AgentsRoutes(agents));
            modules.add(new SecretRoutes(new Vault(store.secrets(), VaultKey.fromDataDir(dataDir))));
            modules.add(new EgressRoutes(host, store.egressAudit()));
        }
        server = new PaddockServer(host, keys, config, modules);
        int port = server.start();
        admin = new Api(port, adminKey);
    }

    /** A driver the server knows but cannot run here, as a host without runsc lists gVisor. */
    static UnavailableDriver absentDriver(Conformance like) {
        Conformance record = new Conformance(ABSENT_DRIVER, "a driver this machine lacks", like.lanes(), like.lifecycle(),
                like.workspace(), like.outputs(), like.credentialEgress(), like.runtimeCheckpoints(), like.portFacts());
        return new UnavailableDriver(record, ABSENT_REASON);
    }

    static final String ABSENT_DRIVER = "absent";
    static final String ABSENT_REASON = "its runtime is not installed on this machine";

    Api as(String key) {
        return new Api(server.port(), key);
    }

    /** A client of a new tenant, with a non-admin key. */
    Api newTenant(String name) {
        return as(keys.create("tenant-" + name + "-" + System.nanoTime(), name, false).secret());
    }

    @Override
    public void close() {
        server.stop();
        if (agents != null) agents.close();
        host.close();
        store.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temp dir; best effort
        }
    }
}
