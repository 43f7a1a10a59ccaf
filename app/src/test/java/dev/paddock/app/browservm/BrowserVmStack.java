package dev.paddock.app.browservm;

import dev.paddock.browservm.web.BrowserVmWeb;
import dev.paddock.driver.browservm.BrowserVm;
import dev.paddock.driver.browservm.BrowserVmConfig;
import dev.paddock.driver.browservm.BrowserVmDriver;
import dev.paddock.access.ApiKeys;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.PaddockServer;
import dev.paddock.server.ServerConfig;
import dev.paddock.store.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/**
 * A real Paddock (SQLite store, runtime host, HTTP server) whose only driver is browser-vm, with a clock the test
 * can move (pairing codes expire) and a short reconnect grace (so "tab gone" shows within seconds).
 */
final class BrowserVmStack implements AutoCloseable {
    static final Duration RECONNECT_GRACE = Duration.ofSeconds(3);

    final MovableClock clock = new MovableClock();
    final Path dataDir;
    final Path assets;
    final JdbcStore store;
    final ApiKeys keys;
    BrowserVm vm;
    BrowserVmDriver driver;
    RuntimeHost host;
    PaddockServer server;
    final String url;
    final String tenantAKey;
    final String tenantBKey;

    BrowserVmStack(Path dataDir, Path assets) throws Exception {
        Files.createDirectories(dataDir);
        store = JdbcStore.openSqlite(dataDir.resolve("paddock.db"));
        keys = new ApiKeys(store.apiKeys(), Clock.systemUTC());
        tenantAKey = keys.create("tenant_a", "a", true).secret();
        tenantBKey = keys.create("tenant_b", "b", true).secret();
        this.dataDir = dataDir;
        this.assets = assets;
        startServer(0);
        url = "http://127.0.0.1:" + server.port();
    }

    private void startServer(int port) {
        vm = new BrowserVm(BrowserVmConfig.defaults(assets).withTimings(Duration.ofSeconds(25), Duration.ofSeconds(60), RECONNECT_GRACE), clock);
        driver = new BrowserVmDriver(vm);
        host = new RuntimeHost(HostConfig.defaults(dataDir).withDefaultDriver(BrowserVmDriver.ID), store, List.of(driver), Clock.systemUTC());
        host.start();
        server = new PaddockServer(host, keys, ServerConfig.defaults().withPort(port), List.of(new BrowserVmWeb(vm)));
        server.start();
    }

    /** Stops the server (its runtimes are in memory and gone with it) and starts a new one on the same port and store. */
    void restart() {
        int port = server.port();
        stopServer();
        startServer(port);
    }

    private void stopServer() {
        server.stop();
        host.close();
        driver.close();
        vm.close();
    }

    @Override
    public void close() {
        stopServer();
        store.close();
    }

    /** Real time, plus whatever the test adds. */
    static final class MovableClock extends Clock {
        private volatile Duration offset = Duration.ZERO;

        void advance(Duration d) { offset = offset.plus(d); }

        @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }

        @Override public Clock withZone(java.time.ZoneId zone) { return this; }

        @Override public Instant instant() { return Instant.now().plus(offset); }
    }
}
