package dev.paddock.server.http;

import dev.paddock.host.RuntimeHost;
import io.javalin.http.Context;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus metrics of the HTTP layer: one timer per route template, method and status (its count is the request
 * counter), a gauge of live sandboxes and one of each warm pool's waiting sandboxes. Routes are tagged by template, never by raw path, so ids do not explode
 * the series count.
 */
public final class HttpMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    public HttpMetrics(RuntimeHost host) {
        this(host, null);
    }

    /** With {@code nodeId} (a node of a cluster), every series carries it as the label {@code node_id}. */
    public HttpMetrics(RuntimeHost host, String nodeId) {
        if (nodeId != null) registry.config().commonTags("node_id", nodeId);
        Gauge.builder("paddock.sandboxes.live", host, RuntimeHost::liveCount)
                .description("Sandboxes attached to this host")
                .register(registry);
        for (String pool : host.warmPoolNames()) {
            Gauge.builder("paddock.sandboxes.warm", host, h -> h.warmCount(pool))
                    .description("Started sandboxes waiting in a warm pool")
                    .tag("pool", pool)
                    .register(registry);
        }
    }

    public void record(Context ctx, float millis) {
        Timer.builder("paddock.http.requests")
                .description("HTTP requests by route, method and status")
                .tag("method", ctx.method().name())
                .tag("route", route(ctx))
                .tag("status", Integer.toString(ctx.statusCode()))
                .register(registry)
                .record((long) (millis * 1_000_000L), TimeUnit.NANOSECONDS);
    }

    public String scrape() {
        return registry.scrape();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * The route template a request matched (e.g. {@code /v1/sandboxes/{id}/ports/{port}/t/{token}/<path>}), for metrics
     * and logs: never the raw path, which can carry a credential such as a port's token.
     */
    static String route(Context ctx) {
        try {
            var endpoint = ctx.endpoints().matchedHttpEndpoint(); // the route's handler, not the after-filter that ran last
            if (endpoint != null && endpoint.path != null) return endpoint.path;
        } catch (RuntimeException ignored) {
            // no endpoint matched: a static file or a 404
        }
        return ctx.path().startsWith("/v1") ? "unmatched" : "static";
    }
}
