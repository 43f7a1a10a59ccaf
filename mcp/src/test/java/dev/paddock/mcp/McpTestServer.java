package dev.paddock.mcp;

import dev.paddock.core.store.Store;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.access.ApiKeys;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxTemplate;
import dev.paddock.store.JdbcStore;
import io.javalin.Javalin;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * A real host (SQLite store, test-only subprocess driver) and real API keys, with the MCP endpoint mounted into a
 * Javalin server's servlet context exactly as the REST server mounts it; two tenants with a key each, and the
 * sandbox templates a test gives.
 */
final class McpTestServer implements AutoCloseable {
    final Store store;
    final RuntimeHost host;
    final ApiKeys keys;
    final McpHttpEndpoint endpoint;
    final Javalin app;
    final String aliceKey;
    final String bobKey;

    McpTestServer(Path dataDir, SandboxTemplate... templates) {
        store = JdbcStore.openSqlite(dataDir.resolve("paddock.db"));
        host = new RuntimeHost(HostConfig.defaults(dataDir).withDefaultDriver("subprocess"), store,
                List.of(new SubprocessDriver(dataDir.resolve("subprocess"))), Clock.systemUTC());
        for (SandboxTemplate t : templates) host.addTemplate(t);
        host.start();
        keys = new ApiKeys(store.apiKeys(), Clock.systemUTC());
        aliceKey = keys.create("tenant-alice", "alice", false).secret();
        bobKey = keys.create("tenant-bob", "bob", false).secret();
        endpoint = new McpHttpEndpoint(host, new dev.paddock.browser.BrowserService(host), keys, "test", 1L << 20);
        app = Javalin.create(c -> {
            c.concurrency.useVirtualThreads = true;
            c.startup.showJavalinBanner = false;
            c.jetty.modifyServletContextHandler(endpoint::mount);
        });
        app.start("127.0.0.1", 0);
    }

    String baseUrl() {
        return "http://127.0.0.1:" + app.port();
    }

    McpSyncClient httpClient(String key) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(baseUrl())
                .endpoint("/mcp")
                .httpRequestCustomizer((b, method, uri, body, ctx) -> { if (key != null) b.header("x-api-key", key); })
                .build();
        return McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).initializationTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public void close() {
        app.stop();
        endpoint.close();
        host.close();
        store.close();
    }
}
