package dev.paddock.app.serve;

import dev.paddock.access.ApiKeys;
import dev.paddock.agents.ManagedAgents;
import dev.paddock.browser.BrowserService;
import dev.paddock.browser.BrowserTemplate;
import dev.paddock.browservm.web.BrowserVmWeb;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.driver.browservm.BrowserVmDriver;
import dev.paddock.driver.bwrap.BwrapDriver;
import dev.paddock.host.HostConfig;
import dev.paddock.host.HostOwner;
import dev.paddock.host.nodes.NodeMembership;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.ports.PortForwards;
import dev.paddock.host.terminal.TerminalSessions;
import dev.paddock.images.ImageCatalog;
import dev.paddock.images.ImageStore;
import dev.paddock.mcp.McpHttpEndpoint;
import dev.paddock.server.PaddockServer;
import dev.paddock.server.RouteModule;
import dev.paddock.server.ServerConfig;
import dev.paddock.server.routes.ImageRoutes;
import dev.paddock.server.routes.McpRoutes;
import dev.paddock.server.routes.TerminalsAndPorts;
import dev.paddock.server.routes.agents.AgentsRoutes;
import dev.paddock.server.routes.browser.BrowserRoutes;
import dev.paddock.server.routes.egress.EgressRoutes;
import dev.paddock.server.routes.egress.SecretRoutes;
import dev.paddock.store.JdbcStore;
import dev.paddock.store.StoreLocation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: one data directory, the SQLite store, the configured driver, the runtime host and the
 * HTTP server, started in that order and stopped in reverse. Stopping leaves sandboxes running; the next start
 * re-attaches them.
 */
public final class PaddockApp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PaddockApp.class);

    private final DataDir dataDir;
    private final List<AutoCloseable> parts;
    private final PaddockServer server;
    private final String url;
    private final BindAddress bound;
    private final Optional<String> createdAdminKey;

    private PaddockApp(DataDir dataDir, List<AutoCloseable> parts, PaddockServer server, String url, BindAddress bound,
                       Optional<String> createdAdminKey) {
        this.dataDir = dataDir;
        this.parts = parts;
        this.server = server;
        this.url = url;
        this.bound = bound;
        this.createdAdminKey = createdAdminKey;
    }

    /** Starts everything or, on failure, releases what was started and throws a {@link StartupException}. */
    public static PaddockApp start(ServeSettings s) {
        DataDir dir = DataDir.open(s.dataDir());
        List<AutoCloseable> started = new ArrayList<>();
        started.add(dir);
        try {
            List<SandboxDriver> loaded = DriverLoader.loadAll(s);
            started.addAll(loaded);
            SandboxDriver driver = loaded.getFirst();
            requireDiskLimits(s, driver);
            BrowserVmDriver browserVm = BrowserVmWiring.start(started);
            Path db = dir.database();
            StoreLocation location = StoreLocation.parse(s.storeUrl(), db);
            if (location instanceof StoreLocation.Sqlite) dir.privateDatabase();
            JdbcStore store = JdbcStore.open(location, Clock.systemUTC());
            started.add(store);
            if (location instanceof StoreLocation.Sqlite) {
                started.add(new DataDirWatch(store, dir.root().resolve(DataDir.LOCK_FILE), db,
                        db.resolveSibling(db.getFileName() + "-wal")).start());
            } else {
                started.add(new DataDirWatch(store, dir.root().resolve(DataDir.LOCK_FILE)).start());
            }
            ApiKeys keys = new ApiKeys(store.apiKeys(), Clock.systemUTC());
            Optional<String> created = AdminKey.ensure(keys, dir, s.apiKey());
            HostConfig hostConfig = new HostConfig(dir.root(), driver.id(), s.defaultTimeout(), s.maxTimeout(),
                    s.idleSuspendAfter(), s.idleTerminateAfter(), s.operationTimeout(), s.sweepInterval(), s.warmPoolSize())
                    .withDisk(s.defaultDisk(), s.maxDisk()).withCheckpointStorage(s.maxCheckpointSize(), s.tenantStorageQuota())
                    .withCheckpointDir(s.checkpointDir());
            EgressWiring.Egress egress = EgressWiring.start(s, dir.root(), store, started);
            List<SandboxDriver> drivers = new ArrayList<>(loaded);
            drivers.add(browserVm);
            drivers.add(BrowserVmWiring.daemon(browserVm, started));
            SandboxDriver sandboxFree = DriverLoader.sandboxFree(s, driver);
            if (sandboxFree != null) drivers.add(sandboxFree);
            NodeMembership node = store.sharable() ? ClusterWiring.join(s, dir, store, drivers, started) : null;
            RuntimeHost host = new RuntimeHost(hostConfig, store, drivers, egress.port(), Clock.systemUTC(),
                    node == null ? HostOwner.alone() : node.owner());
            started.add(host);
            if (sandboxFree != null) host.reserveForSandboxFree(sandboxFree.id());
            BrowserService browser = new BrowserService(host); // its hooks, REST and MCP share one set of per-sandbox locks
            host.addTemplate(new BrowserTemplate(browser, s.browserWarmPoolSize()));
            host.start();
            if (node != null) ClusterWiring.start(node, host, store);
            ServerConfig serverConfig = ServerConfig.defaults().withHost(s.bind()).withPort(s.port())
                    .withLimits(s.maxJsonBytes(), s.maxUploadBytes());
            ManagedAgents agents = AgentsWiring.start(s, host, store, egress.vault(), started);
            if (node != null) ClusterWiring.sessions(node, agents);
            else agents.resumeCutOffTurns(); // alone: the turns this server ran when it was killed go on
            List<RouteModule> modules = routeModules(s, serverConfig, host, keys, store, dir, egress, browserVm, browser, agents);
            PaddockServer server = new PaddockServer(host, keys, serverConfig, modules,
                    node == null ? null : ClusterWiring.link(s, node, store, agents, host));
            started.add(server::stop); // also closes the modules, should the start fail
            dir.lockDown(); // every component has made its files: close what sandboxes need not reach
            server.start();
            if (node != null) ClusterWiring.listening(s, node, store, server.port());
            String url = "http://" + hostForUrl(s.bind()) + ":" + server.port();
            dir.writeUrl(url);
            return new PaddockApp(dir, started, server, url, new BindAddress(s.bind(), server.port()), created);
        } catch (RuntimeException e) {
            closeAll(started);
            String full = DiskSpace.fullMessage(dir.root());
            if (full != null) throw new StartupException(full + " (" + e.getMessage() + ")");
            if (e instanceof StartupException) throw e;
            if (e instanceof PaddockException pe) throw new StartupException(pe.getMessage());
            throw new StartupException("Paddock could not start: " + e.getMessage());
        }
    }

    /**
     * The server's features beyond the sandbox API: paired runtimes, images, the browser routes and MCP (one
     * {@link BrowserService}, so both share its per-sandbox locks), the vault and egress audit, Managed Agents.
     */
    private static List<RouteModule> routeModules(ServeSettings s, ServerConfig serverConfig, RuntimeHost host, ApiKeys keys,
                                                  JdbcStore store, DataDir dir, EgressWiring.Egress egress, BrowserVmDriver browserVm,
                                                  BrowserService browser, ManagedAgents agents) {
        return List.of(
                new BrowserVmWeb(browserVm.runtimeService()),
                new ImageRoutes(new ImageCatalog(images(dir), store.sandboxes())),
                new BrowserRoutes(browser),
                new SecretRoutes(egress.vault()),
                new EgressRoutes(host, store.egressAudit()),
                new AgentsRoutes(agents),
                new McpRoutes(new McpHttpEndpoint(host, browser, keys, serverConfig.version(), serverConfig.maxJsonBytes())),
                new TerminalsAndPorts(new TerminalSessions(host, s.terminalGrace(), (int) Math.min(Integer.MAX_VALUE, s.terminalBuffer()), Clock.systemUTC()),
                        new PortForwards(host, keys::revoked, Clock.systemUTC())));
    }

    /** Fails closed: a configured default disk limit that this host cannot enforce would silently be none. */
    private static void requireDiskLimits(ServeSettings s, SandboxDriver driver) {
        if (s.defaultDisk() > 0 && driver instanceof BwrapDriver bwrap) {
            bwrap.diskQuotaProblem().ifPresent(problem -> {
                throw new StartupException("default_disk is " + s.defaultDisk() + " bytes but this host cannot enforce disk limits: " + problem
                        + "; fix that, or set default_disk=0 to run sandboxes without a disk limit");
            });
        }
    }

    public String url() { return url; }

    public int port() { return server.port(); }

    /** Every HTTP and WebSocket route served, as {@code "METHOD /path/{param}"}. */
    public List<String> routes() { return server.routes(); }

    public DataDir dataDir() { return dataDir; }

    /** The address the server is bound to, as configured (may be a wildcard such as 0.0.0.0). */
    public BindAddress boundAddress() { return bound; }

    /** The admin key created by this start, if any: shown once, never logged. */
    public Optional<String> createdAdminKey() { return createdAdminKey; }

    /** The one-line banner, then (first start only) the admin key. */
    public void printBanner(PrintWriter out) {
        createdAdminKey.ifPresent(key -> {
            out.println("Created an admin API key. It is shown only this once and saved to " + dataDir.adminKeyFile() + " (mode 0600):");
            out.println();
            out.println("    " + key);
            out.println();
            out.println("Sign in to the console with it; the paddock CLI on this machine finds it by itself.");
        });
        String listening = bound.url();
        out.println("Paddock listening on " + listening + " (console: " + listening + "/)");
        if (!bound.loopback()) {
            out.println();
            out.println("WARNING: Paddock is bound to " + bound.host() + ", so its API and console are reachable from the network,");
            out.println("         not only from this machine. Anyone who can reach port " + bound.port() + " can try API keys, and the");
            out.println("         traffic is plain HTTP. Put it behind a firewall and a TLS proxy, or use --bind 127.0.0.1.");
            out.println("         Local clients use " + url + ".");
        }
        out.flush();
    }

    @Override
    public void close() {
        if (parts.isEmpty()) return;
        closeAll(parts);
        log.info("Paddock stopped; running sandboxes keep running and are re-attached on the next start");
    }

    private static void closeAll(List<AutoCloseable> parts) {
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                parts.get(i).close();
            } catch (Exception e) {
                log.warn("shutdown of {} reported: {}", parts.get(i).getClass().getSimpleName(), e.getMessage());
            }
        }
        parts.clear();
    }

    /** Images live in the data dir; half-made ones left by a crash are cleared before serving. */
    private static ImageStore images(DataDir dir) {
        ImageStore images = ImageStore.inDataDir(dir.root());
        images.removeLeftovers();
        return images;
    }

    static String hostForUrl(String bind) {
        if (bind.equals("0.0.0.0")) return "127.0.0.1";
        if (bind.equals("::")) return "[::1]";
        return bind.contains(":") && !bind.startsWith("[") ? "[" + bind + "]" : bind;
    }
}
