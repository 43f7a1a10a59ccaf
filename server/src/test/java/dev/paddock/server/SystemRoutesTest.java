package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Health, drivers, metrics and the web console. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SystemRoutesTest {
    private final TestServer t = new TestServer();

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void healthNamesTheLoadedDrivers() {
        var r = t.as(null).get("/v1/health");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("status").asString()).isEqualTo("ok");
        assertThat(r.json().path("version").asString()).isNotBlank();
        assertThat(r.json().path("drivers").get(0).asString()).isEqualTo("subprocess");
    }

    @Test
    void driversListConformanceRecordsInSnakeCase() {
        var r = t.admin.get("/v1/drivers");
        assertThat(r.status()).isEqualTo(200);
        var d = r.json().path("data").get(0);
        assertThat(d.path("driver").asString()).isEqualTo("subprocess");
        assertThat(d.has("credential_egress")).isTrue();
        assertThat(d.has("runtime_checkpoints")).isTrue();
        assertThat(d.path("lifecycle").path("suspend_resume").asString()).isIn("supported", "unsupported");
        assertThat(d.path("available").asBoolean(false)).isTrue();
        assertThat(d.has("unavailable_reason")).isFalse();
    }

    @Test
    void aDriverThatCannotRunHereIsListedWithItsReasonAndCreatesOnItFailFast() {
        var absent = t.admin.get("/v1/drivers").json().path("data").get(1);
        assertThat(absent.path("driver").asString()).isEqualTo(TestServer.ABSENT_DRIVER);
        assertThat(absent.path("available").asBoolean(true)).isFalse();
        assertThat(absent.path("unavailable_reason").asString()).isEqualTo(TestServer.ABSENT_REASON);

        var created = t.admin.post("/v1/sandboxes", "{\"driver\":\"" + TestServer.ABSENT_DRIVER + "\"}");
        assertThat(created.status()).isEqualTo(503);
        assertThat(created.json().path("error").path("code").asString()).isEqualTo("driver_unavailable");
        assertThat(created.json().path("error").path("message").asString()).contains(TestServer.ABSENT_REASON);
        assertThat(t.admin.get("/v1/sandboxes").json().path("data").valueStream().map(d -> d.path("driver").asString()))
                .as("nothing recorded").doesNotContain(TestServer.ABSENT_DRIVER);
    }

    @Test
    void theOpenApiDocumentIsServedWithoutAKey() {
        var r = t.as(null).get("/v1/openapi.json");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("application/json");
        assertThat(r.json().path("openapi").asString()).isEqualTo("3.1.0");
        assertThat(r.json().path("paths").has("/v1/sandboxes/{id}/exec")).isTrue();
    }

    @Test
    void metricsExposePrometheusTextWithRequestsAndLiveSandboxes() {
        t.admin.createSandbox();
        t.admin.get("/v1/sandboxes/sbx_0123456789abcdefghjkmnpqrs");
        var r = t.as(null).get("/metrics");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
        assertThat(r.body())
                .contains("# TYPE paddock_http_requests_seconds")
                .contains("paddock_http_requests_seconds_count{method=\"POST\",route=\"/v1/sandboxes\",status=\"201\"}")
                .contains("route=\"/v1/sandboxes/{id}\",status=\"404\"")
                .containsPattern("paddock_sandboxes_live [1-9]")
                .doesNotContain("_created");
    }

    @Test
    void consoleIsServedAtRootWithSecurityHeaders() {
        var r = t.as(null).get("/");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).contains("paddock test console");
        assertThat(r.headers().firstValue("content-security-policy").orElse("")).contains("default-src 'self'")
                .contains("frame-ancestors 'none'");
        assertThat(r.headers().firstValue("x-content-type-options")).hasValue("nosniff");
        assertThat(r.headers().firstValue("x-frame-options")).hasValue("DENY");
        assertThat(t.as(null).get("/index.html").status()).isEqualTo(200);
    }

    @Test
    void theBundledConsoleIsServedByDefaultWhenPresent() {
        org.junit.jupiter.api.Assumptions.assumeTrue(getClass().getResource("/console/index.html") != null,
                "no bundled console on the classpath");
        try (var dflt = new TestServer(ServerConfig.defaults().withPort(0))) {
            var r = dflt.as(null).get("/");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/html");
            assertThat(r.headers().firstValue("content-security-policy").orElse("")).contains("default-src 'self'");
        }
    }

    @Test
    void withoutAConsoleTheApiStillWorksAndRootIsJson404() {
        try (var bare = new TestServer(ServerConfig.defaults().withPort(0).withConsoleResource("/no-such-console"))) {
            bare.as(null).get("/").error(404, "not_found_error", "route_not_found");
            assertThat(bare.admin.get("/v1/sandboxes").status()).isEqualTo(200);
        }
    }

    @Test
    void apiResponsesAreNotCachedOrSniffed() {
        var r = t.admin.get("/v1/sandboxes");
        assertThat(r.headers().firstValue("cache-control")).hasValue("no-store");
        assertThat(r.headers().firstValue("x-content-type-options")).hasValue("nosniff");
    }
    @Test
    void usageCountsTheTenantsLiveSandboxesAndStoredBytesOnly() {
        Api tenant = t.newTenant("usage");
        Api other = t.newTenant("usage-other");
        String first = tenant.post("/v1/sandboxes", "{}").json().path("id").asString();
        tenant.post("/v1/sandboxes", "{}");
        tenant.post("/v1/sandboxes/" + first + "/exec", "{\"command\": \"head -c 50000 /dev/urandom > noise.bin\"}");
        long checkpointBytes = tenant.post("/v1/sandboxes/" + first + "/checkpoints", "{}").json().path("size_bytes").asLong();
        assertThat(checkpointBytes).isPositive();
        assertThat(tenant.get("/v1/sandboxes/" + first).json().path("status").has("cpu_nanos")).isTrue();

        var usage = tenant.get("/v1/usage");
        assertThat(usage.status()).isEqualTo(200);
        assertThat(usage.json().path("type").asString()).isEqualTo("tenant_usage");
        assertThat(usage.json().path("sandboxes").path("live").asInt()).isEqualTo(2);
        assertThat(usage.json().path("sandboxes").path("by_state").path("running").asInt()).isEqualTo(2);
        assertThat(usage.json().path("storage").path("used_bytes").asLong()).isEqualTo(checkpointBytes);
        assertThat(usage.json().path("storage").path("quota_bytes").isNull()).as("no quota set").isTrue();

        tenant.delete("/v1/sandboxes/" + first);
        assertThat(tenant.get("/v1/usage").json().path("sandboxes").path("live").asInt()).as("an ended sandbox is not live").isEqualTo(1);
        var others = other.get("/v1/usage").json();
        assertThat(others.path("sandboxes").path("live").asInt()).as("another tenant's sandboxes are not counted").isZero();
        assertThat(others.path("storage").path("used_bytes").asLong()).isZero();
        assertThat(t.as(null).get("/v1/usage").status()).isEqualTo(401);
    }
}
