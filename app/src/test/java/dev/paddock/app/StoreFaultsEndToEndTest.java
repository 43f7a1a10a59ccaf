package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.StartupException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The store under an operator's bad day, on a real server: a full disk answers writes with 507 and keeps reads
 * working, and a start-up on it says the disk is full; a deleted WAL or an unlinked lock file stops every write
 * (503) instead of acknowledging what would be lost. The full disk is a small tmpfs mounted for the test (root).
 */
class StoreFaultsEndToEndTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private Path dataDir;
    private boolean mounted;
    private PaddockApp app;
    private String key;

    @BeforeEach
    void setUp() throws Exception {
        dataDir = Files.createTempDirectory("paddock-store-faults");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (app != null) app.close();
        if (mounted) run("umount", dataDir.toString());
        run("rm", "-rf", dataDir.toString());
    }

    private void startApp() {
        app = TestServer.start(dataDir);
        key = app.createdAdminKey().orElse(key);
    }

    @Test
    void aFullDiskAnswers507ForWritesKeepsReadsAndSaysSoAtStartUp() throws Exception {
        run("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", dataDir.toString());
        mounted = true;
        startApp();
        assertThat(call("POST", "/v1/secrets", "{\"name\":\"before\",\"value\":\"v\"}").statusCode()).isEqualTo(201);

        Path filler = dataDir.resolve("filler");
        fill(filler);
        HttpResponse<String> refused = call("POST", "/v1/secrets", "{\"name\":\"after\",\"value\":\"" + "v".repeat(20_000) + "\"}");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(507);
        JsonNode error = JSON.readTree(refused.body()).path("error");
        assertThat(error.path("code").asString()).isEqualTo("storage_full");
        assertThat(error.path("message").asString()).contains("disk", "full");
        assertThat(call("GET", "/v1/secrets", null).body()).as("reads keep working").contains("before");

        Files.delete(filler);
        assertThat(call("POST", "/v1/secrets", "{\"name\":\"again\",\"value\":\"v\"}").statusCode()).as("room again: writes work").isEqualTo(201);

        app.close();
        app = null;
        fill(filler);
        assertThatThrownBy(this::startApp).isInstanceOf(StartupException.class).hasMessageContaining("disk that holds it is full");
    }

    @Test
    void aDeletedWalStopsEveryWriteAndReadsKeepWorking() throws Exception {
        startApp();
        assertThat(call("POST", "/v1/secrets", "{\"name\":\"before\",\"value\":\"v\"}").statusCode()).isEqualTo(201);
        Files.delete(dataDir.resolve("paddock.db-wal"));
        HttpResponse<String> r = call("POST", "/v1/secrets", "{\"name\":\"lost\",\"value\":\"v\"}");
        assertThat(r.statusCode()).as("the very next write is refused, not acknowledged: %s", r.body()).isEqualTo(503);
        assertThat(JSON.readTree(r.body()).path("error").path("code").asString()).isEqualTo("store_writes_stopped");
        assertThat(call("GET", "/v1/sandboxes", null).statusCode()).isEqualTo(200);
    }

    @Test
    void anUnlinkedLockFileStopsEveryWrite() throws Exception {
        startApp();
        Files.delete(dataDir.resolve("paddock.lock"));
        HttpResponse<String> r = call("POST", "/v1/sandboxes", "{}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.body()).contains("store_writes_stopped", "paddock.lock");
    }

    /** Writes until the file system is full. */
    private static void fill(Path filler) throws IOException {
        byte[] block = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) out.write(block);
        } catch (IOException full) {
            assertThat(full.getMessage()).contains("No space left");
        }
    }

    private HttpResponse<String> call(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(app.url() + path)).timeout(Duration.ofSeconds(30)).header("x-api-key", key)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + out).isZero();
    }
}
