package dev.paddock.server;

import dev.paddock.access.ApiKeys;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.ApiErrors;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.ConsoleFiles;
import dev.paddock.server.http.HttpMetrics;
import dev.paddock.server.http.JsonErrorPages;
import dev.paddock.server.routes.ApiKeyRoutes;
import dev.paddock.server.routes.CheckpointRoutes;
import dev.paddock.server.routes.ExecRoutes;
import dev.paddock.server.routes.OutputRoutes;
import dev.paddock.server.routes.FileRoutes;
import dev.paddock.server.routes.ImageRoutes;
import dev.paddock.server.routes.ProcessRoutes;
import dev.paddock.server.routes.SandboxRoutes;
import dev.paddock.server.routes.SystemRoutes;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paddock's HTTP server: the REST API of docs/API.md (with SSE exec streaming), Prometheus metrics and the web
 * console, on one port. It adapts HTTP to {@link RuntimeHost} and {@link ApiKeys} and holds no logic of its own.
 * The host is the caller's: {@link #stop()} stops serving and leaves the host running.
 */
public final class PaddockServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PaddockServer.class);

    private final RuntimeHost host;
    private final ApiKeys keys;
    private final ServerConfig config;
    private final ApiJson json = new ApiJson();
    private final ApiErrors errors = new ApiErrors(json);
    private final HttpMetrics metrics;
    private Javalin app;
    private boolean consoleServed;
    private dev.paddock.driver.browservm.BrowserVm browserVm;
    private ImageService images;
    private dev.paddock.agents.ManagedAgents agents;
    private dev.paddock.mcp.McpHttpEndpoint mcp;
    private final dev.paddock.browser.BrowserService browser;
    private dev.paddock.egress.Vault vault;
    private dev.paddock.egress.EgressAuditLog egressAudit;

    public PaddockServer(RuntimeHost host, ApiKeys keys, ServerConfig config) {
        this.host = host;
        this.keys = keys;
        this.config = config == null ? ServerConfig.defaults() : config;
        this.metrics = new HttpMetrics(host);
        this.browser = dev.paddock.browser.BrowserService.of(host); // the browser template's: REST, MCP and its hooks share its per-sandbox locks
    }

    /** Serves {@code /v1/images} from {@code service} and checks image names at sandbox create; call before {@link #start()}. */
    public synchronized PaddockServer images(ImageService service) {
        if (app != null) throw new IllegalStateException("images must be set before the server starts");
        this.images = service;
        return this;
    }

    /** Serves the Managed Agents API (agents, environments, sessions, work queue); call before {@link #start()}. */
    public synchronized PaddockServer agents(dev.paddock.agents.ManagedAgents managedAgents) {
        if (app != null) throw new IllegalStateException("agents must be set before the server starts");
        this.agents = managedAgents;
        return this;
    }

    /** Serves paired runtimes (browser-vm tabs), their relay and the sandbox tab page; call before {@link #start()}. */
    public synchronized PaddockServer browserVm(dev.paddock.driver.browservm.BrowserVm service) {
        if (app != null) throw new IllegalStateException("browserVm must be set before the server starts");
        this.browserVm = service;
        return this;
    }

    /** Serves the vault at {@code /v1/secrets} and the egress audit log at {@code /v1/sandboxes/{id}/egress}; call before {@link #start()}. */
    public synchronized PaddockServer egress(dev.paddock.egress.Vault vault, dev.paddock.egress.EgressAuditLog audit) {
        if (app != null) throw new IllegalStateException("egress must be set before the server starts");
        this.vault = vault;
        this.egressAudit = audit;
        return this;
    }

    /** Starts serving and returns the bound port (useful with port 0). */
    public synchronized int start() {
        if (app != null) return app.port();
        app = Javalin.create(this::configure);
        app.start(config.host(), config.port());
        for (var connector : app.jettyServer().server().getConnectors()) {
            if (connector instanceof org.eclipse.jetty.server.AbstractConnector c) c.setIdleTimeout(config.idleTimeout().toMillis());
        }
        log.info("Paddock API listening on http://{}:{}{}", config.host(), app.port(), consoleServed ? " (web console at /)" : "");
        return app.port();
    }

    public synchronized int port() {
        if (app == null) throw new IllegalStateException("the server is not started");
        return app.port();
    }

    /**
     * Every route this server answers, as {@code "METHOD /path/{param}"} (WebSocket routes as {@code "WS …"}; the
     * MCP servlet at {@code /mcp} is not a route): for tests that must walk all of them.
     */
    public synchronized java.util.List<String> routes() {
        if (app == null) throw new IllegalStateException("the server is not started");
        var router = app.unsafe.internalRouter;
        java.util.List<String> out = new java.util.ArrayList<>();
        router.allHttpHandlers().stream().map(h -> h.endpoint)
                .filter(e -> e.method.isHttpMethod())
                .forEach(e -> out.add(e.method.name() + " " + e.path));
        router.allWsHandlers().forEach(w -> out.add("WS " + w.getPath()));
        return out;
    }

    /** The Prometheus registry, for modules that add their own meters. */
    public io.micrometer.core.instrument.MeterRegistry meterRegistry() {
        return metrics.registry();
    }

    public synchronized void stop() {
        if (app != null) {
            app.stop();
            app = null;
        }
        if (mcp != null) {
            mcp.close();
            mcp = null;
        }
    }

    @Override
    public void close() {
        stop();
    }

    private void configure(JavalinConfig c) {
        c.concurrency.useVirtualThreads = true;
        c.jsonMapper(json);
        c.http.maxRequestSize = config.maxJsonBytes();
        c.http.prefer405over404 = true;
        c.http.defaultContentType = "application/json";
        c.startup.showJavalinBanner = false;
        c.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorPages(json)));
        c.jetty.modifyServletContextHandler(context -> context.setErrorHandler(new JsonErrorPages(json)));
        c.router.javaLangErrorHandler(errors::handleError);
        consoleServed = ConsoleFiles.register(c, config.consoleResource());
        // MCP (streamable HTTP) at /mcp on the same port; it checks the API key itself
        mcp = new dev.paddock.mcp.McpHttpEndpoint(host, browser, keys, config.version(), config.maxJsonBytes());
        c.jetty.modifyServletContextHandler(mcp::mount);

        Bodies bodies = new Bodies(json, config.maxJsonBytes(), config.maxUploadBytes());
        Auth auth = agents == null ? new Auth(keys) : new Auth(keys, dev.paddock.server.routes.agents.AgentsRoutes.environmentKeys(agents));
        var r = c.routes;
        r.before(ctx -> {
            ctx.header("X-Content-Type-Options", "nosniff");
            if (isApi(ctx)) ctx.header("Cache-Control", "no-store");
        });
        r.beforeMatched(ctx -> {
            if (needsKey(ctx)) auth.authenticate(ctx);
        });
        r.after(dev.paddock.server.http.Bodies::drainUnread);
        r.exception(Exception.class, errors::handle);
        r.error(404, errors::statusPage);
        r.error(405, errors::statusPage);
        c.requestLogger.http(metrics::record);

        new SystemRoutes(host, metrics, config.version()).register(r);
        if (browserVm != null) {
            new dev.paddock.server.runtimes.RuntimeRoutes(browserVm, bodies).register(r);
            new dev.paddock.server.runtimes.SandboxTabPage(browserVm.config().assetsDir(), config.consoleResource()).register(r);
        }
        new SandboxRoutes(host, bodies, images).register(r);
        if (images != null) new ImageRoutes(images).register(r);
        new ExecRoutes(host, bodies, json, errors).register(r);
        new ProcessRoutes(host, bodies).register(r);
        new FileRoutes(host, bodies).register(r);
        new OutputRoutes(host).register(r);
        new CheckpointRoutes(host).register(r);
        new dev.paddock.server.routes.browser.BrowserRoutes(browser, bodies).register(r);
        new ApiKeyRoutes(keys, bodies).register(r);
        if (vault != null) new dev.paddock.server.routes.egress.SecretRoutes(vault, bodies).register(r);
        if (egressAudit != null) new dev.paddock.server.routes.egress.EgressRoutes(host, egressAudit, json).register(r);
        if (agents != null) new dev.paddock.server.routes.agents.AgentsRoutes(agents, bodies, json).register(r);
    }

    private static boolean isApi(Context ctx) {
        return ctx.path().startsWith("/v1/");
    }

    private static boolean needsKey(Context ctx) {
        return isApi(ctx) && !ctx.path().equals("/v1/health") && !ctx.path().equals(SystemRoutes.OPENAPI_PATH)
                && !dev.paddock.server.runtimes.RuntimeRoutes.isPublic(ctx.method().name(), ctx.path());
    }
}
