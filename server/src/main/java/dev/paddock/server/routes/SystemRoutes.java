package dev.paddock.server.routes;

import dev.paddock.core.conformance.Conformance;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.HttpMetrics;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;

/** Health, loaded drivers and Prometheus metrics. */
public final class SystemRoutes {
    private final RuntimeHost host;
    private final HttpMetrics metrics;
    private final String version;

    public SystemRoutes(RuntimeHost host, HttpMetrics metrics, String version) {
        this.host = host;
        this.metrics = metrics;
        this.version = version;
    }

    public void register(RoutesConfig r) {
        r.get("/v1/health", ctx -> ctx.json(new Views.Health("ok", version,
                host.drivers().stream().map(Conformance::driver).toList())));
        r.get("/v1/drivers", ctx -> ctx.json(new Views.DataList<>(host.drivers())));
        r.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape()));
    }
}
