package dev.paddock.server.routes;

import dev.paddock.core.conformance.Conformance;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.ErrorBody;
import dev.paddock.server.http.HttpMetrics;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/** Health (liveness and readiness), loaded drivers, Prometheus metrics and the OpenAPI document of the API. */
public final class SystemRoutes {
    /** The one source of the API's OpenAPI document; docs/openapi.json is a copy that a test keeps equal. */
    public static final String OPENAPI_RESOURCE = "/dev/paddock/server/openapi.json";
    public static final String OPENAPI_PATH = "/v1/openapi.json";
    public static final String HEALTH_PATH = "/v1/health";
    public static final String READY_PATH = "/v1/health/ready";

    private final RuntimeHost host;
    private final HttpMetrics metrics;
    private final String version;
    private final Readiness readiness;

    public SystemRoutes(RuntimeHost host, HttpMetrics metrics, String version) {
        this.host = host;
        this.metrics = metrics;
        this.version = version;
        this.readiness = new Readiness(host::checkStore);
    }

    public void register(RoutesConfig r) {
        // liveness: the process serves requests; nothing it depends on is asked, so a database outage restarts no server
        r.get(HEALTH_PATH, ctx -> ctx.json(health()));
        // readiness: this server can serve now (its store answers), else 503 naming the component and its error code
        r.get(READY_PATH, ctx -> {
            Readiness.Problem p = readiness.problem();
            if (p == null) {
                ctx.json(health());
            } else {
                ctx.status(p.code().httpStatus()).json(ErrorBody.of(p.code(), p.message(), Map.of("component", p.component())));
            }
        });
        r.get("/v1/drivers", ctx -> ctx.json(new Views.DataList<>(host.driverStatuses().stream().map(Views.Driver::of).toList())));
        byte[] openapi = openapi();
        r.get(OPENAPI_PATH, ctx -> ctx.contentType("application/json").result(openapi));
        r.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(metrics.scrape()));
    }

    private Views.Health health() {
        return new Views.Health("ok", version, host.drivers().stream().map(Conformance::driver).toList());
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
