package dev.paddock.server.routes;

import dev.paddock.core.conformance.Conformance;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.HttpMetrics;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Health, loaded drivers, Prometheus metrics and the OpenAPI document of the API. */
public final class SystemRoutes {
    /** The one source of the API's OpenAPI document; docs/openapi.json is a copy that a test keeps equal. */
    public static final String OPENAPI_RESOURCE = "/dev/paddock/server/openapi.json";
    public static final String OPENAPI_PATH = "/v1/openapi.json";

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
        r.get("/v1/drivers", ctx -> ctx.json(new Views.DataList<>(host.driverStatuses().stream().map(Views.Driver::of).toList())));
        byte[] openapi = openapi();
        r.get(OPENAPI_PATH, ctx -> ctx.contentType("application/json").result(openapi));
        r.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape()));
    }

    private static byte[] openapi() {
        try (var in = SystemRoutes.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) throw new IllegalStateException("the build left out " + OPENAPI_RESOURCE);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
