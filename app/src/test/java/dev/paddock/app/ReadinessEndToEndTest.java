package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import dev.paddock.store.StoreLocation;
import dev.paddock.store.testing.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Liveness ({@code GET /v1/health}) and readiness ({@code GET /v1/health/ready}) on a real server whose store goes
 * away: PostgreSQL behind a loopback gate that stops it (connections reset, new ones refused), starts it again, and
 * makes it hang (connections open, nothing answered); SQLite whose WAL is deleted under the server. Readiness answers
 * 503 {@code store_unavailable} / {@code store_writes_stopped} naming the store, always within the client's timeout
 * (a hanging store never hangs it), and 200 again once the store is back; liveness answers 200 throughout.
 */
class ReadinessEndToEndTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private Path dataDir;
    private PaddockApp app;
    private LoopbackGate gate;

    @AfterEach
    void tearDown() throws Exception {
        if (gate != null) gate.open();
        if (app != null) app.close();
        if (gate != null) gate.close();
        if (dataDir != null) BwrapServer.removeDataDir(dataDir);
    }

    @Test
    void readinessFollowsPostgresDownHungAndBackWhileLivenessStaysUp() throws Exception {
        StoreLocation.Postgres db = TestPostgres.freshDatabase();
        int pgPort = Integer.parseInt(db.jdbcUrl().replaceFirst("^jdbc:postgresql://[^:/]+:(\\d+)/.*$", "$1"));
        gate = new LoopbackGate(pgPort);
        StoreLocation.Postgres gated = new StoreLocation.Postgres(db.jdbcUrl().replaceFirst(":" + pgPort + "/", ":" + gate.port() + "/"),
                db.user(), db.password());
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "paddock-ready");
        app = PaddockApp.start(ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "subprocess",
                "store_url", TestPostgres.storeUrl(gated)), Map.of(), null, dataDir));

        assertThat(get("/v1/health/ready").statusCode()).isEqualTo(200);

        gate.stop();
        HttpResponse<String> down = until(r -> r.statusCode() == 503);
        assertNotReady(down, "store_unavailable");
        assertThat(get("/v1/health").statusCode()).as("liveness does not depend on the store").isEqualTo(200);

        gate.open();
        until(r -> r.statusCode() == 200);

        gate.hang();
        HttpResponse<String> hung = until(r -> r.statusCode() == 503);
        assertNotReady(hung, "store_unavailable");
        for (int i = 0; i < 5; i++) {
            assertThat(get("/v1/health/ready").statusCode()).as("a hanging store answers, never hangs").isEqualTo(503);
            assertThat(get("/v1/health").statusCode()).isEqualTo(200);
        }

        gate.open();
        assertThat(until(r -> r.statusCode() == 200).body()).contains("\"status\":\"ok\"");
    }

    @Test
    void readinessSaysSoWhenSqliteStopsTakingWrites() throws Exception {
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "paddock-ready");
        app = TestServer.start(dataDir);
        assertThat(get("/v1/health/ready").statusCode()).isEqualTo(200);
        Files.delete(dataDir.resolve("paddock.db-wal"));
        assertNotReady(until(r -> r.statusCode() == 503), "store_writes_stopped");
        assertThat(get("/v1/health").statusCode()).isEqualTo(200);
    }

    private static void assertNotReady(HttpResponse<String> r, String code) throws Exception {
        JsonNode error = JSON.readTree(r.body()).path("error");
        assertThat(error.path("type").asString()).as(r.body()).isEqualTo("unavailable_error");
        assertThat(error.path("code").asString()).as(r.body()).isEqualTo(code);
        assertThat(error.path("details").path("component").asString()).as(r.body()).isEqualTo("store");
        assertThat(error.path("message").asString()).as(r.body()).isNotBlank().doesNotContain("password");
    }

    /** Asks for readiness (no key: it is public) until {@code done}; every answer must come within the client's timeout. */
    private HttpResponse<String> until(Predicate<HttpResponse<String>> done) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            HttpResponse<String> r = get("/v1/health/ready");
            if (done.test(r)) return r;
            assertThat(System.nanoTime()).as("readiness never got there; last: %s %s", r.statusCode(), r.body()).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(app.url() + path)).timeout(Duration.ofSeconds(20)).GET().build();
        return HTTP.send(req, HttpResponse.BodyHandlers.ofString());
    }
}
