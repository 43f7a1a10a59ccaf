package dev.paddock.server;

import dev.paddock.access.ApiKeys;
import dev.paddock.access.Principal;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.cluster.ClusterLink;
import dev.paddock.server.cluster.NodeAuth;
import dev.paddock.server.cluster.NodeRoutes;
import dev.paddock.server.cluster.SandboxForwarding;
import dev.paddock.server.http.ApiErrors;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.ConsoleFiles;
import dev.paddock.server.http.HttpMetrics;
import dev.paddock.server.http.JsonErrorPages;
import dev.paddock.server.http.UnreadBodies;
import dev.paddock.server.routes.ApiKeyRoutes;
import dev.paddock.server.routes.CheckpointRoutes;
import dev.paddock.server.routes.ExecRoutes;
import dev.paddock.server.routes.FileRoutes;
import dev.paddock.server.routes.FileWatchRoutes;
import dev.paddock.server.routes.SnapshotRoutes;
import dev.paddock.server.routes.OutputRoutes;
import dev.paddock.server.routes.ProcessRoutes;
import dev.paddock.server.routes.SandboxRoutes;
import dev.paddock.server.routes.SystemRoutes;
import dev.paddock.server.routes.UsageRoutes;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.config.SizeUnit;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.server.AbstractConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paddock's HTTP kernel: the sandbox REST API of docs/API.md (with SSE exec streaming), API keys, Prometheus
 * metrics and the web console on one port, plus the routes of the {@link RouteModule}s it is given (images,
 * egress, browser, Managed Agents, MCP, paired runtimes: whatever the composition root chose). It adapts HTTP to
 * {@link RuntimeHost} and {@link ApiKeys} and holds no logic of its own. The host is the caller's:
 * {@link #stop()} stops serving and leaves the host running.
 */
public final class PaddockServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PaddockServer.class);
    /** What a multipart upload may carry beside its file: boundaries, part headers and small fields. */
    public static final long MULTIPART_OVERHEAD = 64 * 1024;

    private final RuntimeHost host;
    private final ApiKeys keys;
    private final ServerConfig config;
    private final List<RouteModule> modules;
    private final ApiJson json = new ApiJson();
    private final ApiErrors errors = new ApiErrors(json);
    private final HttpMetrics metrics;
    private final ClusterLink cluster;
    private final NodeAuth nodeAuth;
    private SandboxForwarding forwarding;
    private Javalin app;
    private boolean consoleServed;
    private boolean modulesClosed;

    public PaddockServer(RuntimeHost host, ApiKeys keys, ServerConfig config, List<RouteModule> modules) {
        this(host, keys, config, modules, null);
    }

    /**
     * A server of one node of a cluster ({@code cluster} non-null): it answers requests for sandboxes other nodes hold
     * by forwarding them there, places creates on a node, and serves {@code /v1/nodes}.
     */
    public PaddockServer(RuntimeHost host, ApiKeys keys, ServerConfig config, List<RouteModule> modules, ClusterLink cluster) {
        this.host = host;
        this.keys = keys;
        this.config = config == null ? ServerConfig.defaults() : config;
        this.modules = List.copyOf(modules);
        this.cluster = cluster;
        this.nodeAuth = cluster == null ? null : new NodeAuth(cluster.secret());
        this.metrics = new HttpMetrics(host, cluster == null ? null : cluster.selfId());
    }

    /** Starts serving and returns the bound port (useful with port 0). A stopped server has closed its modules: make a new one. */
    public synchronized int start() {
        if (modulesClosed) throw new IllegalStateException("the server was stopped and its modules closed");
        if (app != null) return app.port();
        app = Javalin.create(this::configure);
        app.start(config.host(), config.port());
        for (var connector : app.jettyServer().server().getConnectors()) {
            if (connector instanceof AbstractConnector c) c.setIdleTimeout(config.idleTimeout().toMillis());
        }
        log.info("Paddock API listening on http://{}:{}{}", config.host(), app.port(), consoleServed ? " (web console at /)" : "");
        return app.port();
    }

    public synchronized int port() {
        if (app == null) throw new IllegalStateException("the server is not started");
        return app.port();
    }

    /**
     * Every route this server answers, its modules' included, as {@code "METHOD /path/{param}"} (WebSocket routes
     * as {@code "WS …"}; the MCP servlet at {@code /mcp} is not a route): for tests that must walk all of them.
     */
    public synchronized List<String> routes() {
        if (app == null) throw new IllegalStateException("the server is not started");
        var router = app.unsafe.internalRouter;
        List<String> out = new ArrayList<>();
        router.allHttpHandlers().stream().map(h -> h.endpoint)
                .filter(e -> e.method.isHttpMethod())
                .forEach(e -> out.add(e.method.name() + " " + e.path));
        router.allWsHandlers().forEach(w -> out.add("WS " + w.getPath()));
        return out;
    }

    /** The Prometheus registry, for modules that add their own meters. */
    public MeterRegistry meterRegistry() {
        return metrics.registry();
    }

    public synchronized void stop() {
        if (app != null) {
            app.stop();
            app = null;
        }
        if (modulesClosed) return;
        modulesClosed = true;
        if (forwarding != null) forwarding.close();
        for (RouteModule m : modules) {
            try {
                m.close();
            } catch (RuntimeException e) {
                log.warn("closing {} reported: {}", m.getClass().getSimpleName(), e.getMessage());
            }
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
        // multipart uploads (the Files API): parts past 1 MiB go to a temporary file, a file past max_upload_size is refused
        c.jetty.multipartConfig.maxFileSize(config.maxUploadBytes(), SizeUnit.BYTES);
        c.jetty.multipartConfig.maxTotalRequestSize(config.maxUploadBytes() + MULTIPART_OVERHEAD, SizeUnit.BYTES);
        c.jetty.multipartConfig.maxInMemoryFileSize(1, SizeUnit.MB);
        c.http.prefer405over404 = true;
        c.http.defaultContentType = "application/json";
        c.startup.showJavalinBanner = false;
        c.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorPages(json)));
        c.jetty.modifyServletContextHandler(context -> {
            context.setErrorHandler(new JsonErrorPages(json));
            context.addFilter(new FilterHolder(new UnreadBodies()), "/*", EnumSet.of(DispatcherType.REQUEST));
        });
        c.router.javaLangErrorHandler(errors::handleError);
        consoleServed = ConsoleFiles.register(c, config.consoleResource());
        modules.forEach(m -> m.configure(c));

        Bodies bodies = new Bodies(json, config.maxJsonBytes(), config.maxUploadBytes());
        Auth auth = new Auth(keys, this::moduleCaller, nodeAuth);
        var r = c.routes;
        r.before(ctx -> {
            ctx.header("X-Content-Type-Options", "nosniff");
            if (isApi(ctx)) ctx.header("Cache-Control", "no-store");
        });
        r.beforeMatched(ctx -> {
            if (needsKey(ctx)) auth.authenticate(ctx);
            else if (nodeAuth != null) nodeAuth.authenticateTokenPath(ctx);
        });
        if (cluster != null) {
            forwarding = new SandboxForwarding(cluster, nodeAuth, json, bodies, Clock.systemUTC());
            // after authentication: only a known caller, or a request with its own token, reaches another node
            r.beforeMatched(forwarding::handle);
            r.wsBeforeUpgrade("/v1/sandboxes/<rest>", forwarding::beforeUpgrade); // before the routes' own
        }
        r.exception(Exception.class, errors::handle);
        r.error(404, errors::statusPage);
        r.error(405, errors::statusPage);
        c.requestLogger.http(metrics::record);

        new SystemRoutes(host, metrics, config.version()).register(r);
        new SandboxRoutes(host, bodies, request -> modules.forEach(m -> m.checkSandboxCreate(request))).register(r);
        new ExecRoutes(host, bodies, json, errors).register(r);
        new ProcessRoutes(host, bodies).register(r);
        new FileRoutes(host, bodies).register(r);
        new OutputRoutes(host).register(r);
        new CheckpointRoutes(host, bodies).register(r);
        new ApiKeyRoutes(keys, bodies).register(r);
        new UsageRoutes(host).register(r);
        new NodeRoutes(cluster, Clock.systemUTC(), bodies).register(r);
        new FileWatchRoutes(host, json).register(r);
        new SnapshotRoutes(host, bodies).register(r);
        RouteContext context = new RouteContext(r, bodies, json);
        modules.forEach(m -> m.register(context));
    }

    private Optional<Principal> moduleCaller(String path, String key) {
        return modules.stream().map(m -> m.authenticate(path, key)).flatMap(Optional::stream).findFirst();
    }

    private static boolean isApi(Context ctx) {
        return ctx.path().startsWith("/v1/");
    }

    private boolean needsKey(Context ctx) {
        if (!isApi(ctx) || ctx.path().equals(SystemRoutes.HEALTH_PATH) || ctx.path().equals(SystemRoutes.READY_PATH)
                || ctx.path().equals(SystemRoutes.OPENAPI_PATH)) return false;
        String method = ctx.method().name();
        return modules.stream().noneMatch(m -> m.isPublic(method, ctx.path()));
    }
}
