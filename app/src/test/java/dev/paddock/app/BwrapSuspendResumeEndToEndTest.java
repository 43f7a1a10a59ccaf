package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Suspend and resume over REST on the bubblewrap driver, which claims them: a suspended sandbox's processes are
 * frozen (a counter stops advancing) and a resumed one's go on. The counter is read from the workspace on the host's
 * disk, which does not wake the sandbox as an API file read would.
 */
@Tag("bwrap")
class BwrapSuspendResumeEndToEndTest {
    BwrapServer server;
    PaddockClient api;

    @BeforeEach
    void start() throws Exception {
        server = new BwrapServer("psr");
        api = server.api;
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void anExecCutShortByADeleteIsAConflictWithTheDeleteNotADeadBackend() throws Exception {
        String id = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
        var exec = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), obj().put("command", "sleep 60"));
            } catch (ApiException e) {
                return obj().put("status", e.status()).put("code", e.code());
            }
        });
        Thread.sleep(1000); // the command runs
        api.call("DELETE", "/v1/sandboxes/" + id, Map.of(), null);
        JsonNode answer = exec.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(answer.path("status").asInt()).as(answer.toString()).isEqualTo(409);
        assertThat(answer.path("code").asString()).isEqualTo("sandbox_not_running");
    }

    @Test
    void suspendFreezesEveryProcessAndResumeLetsThemGoOn() throws Exception {
        String id = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
        assertThat(api.get("/v1/sandboxes/" + id).path("driver").asString()).isEqualTo("bwrap");
        ObjectNode counter = obj().put("command", "i=0; while :; do i=$((i+1)); echo $i > n.tmp && mv n.tmp n; sleep 0.05; done")
                .put("timeout_seconds", 600);
        api.json("POST", "/v1/sandboxes/" + id + "/processes", Map.of(), counter);
        Path n = server.dataDir.resolve("sandboxes").resolve(id).resolve("workspace").resolve("n");
        await().atMost(Duration.ofSeconds(20)).until(() -> count(n) > 3);

        JsonNode suspended = api.json("POST", "/v1/sandboxes/" + id + "/suspend", Map.of(), null);
        assertThat(suspended.path("state").asString()).as(suspended.toString()).isEqualTo("suspended");
        JsonNode status = api.get("/v1/sandboxes/" + id);
        assertThat(status.path("state").asString()).isEqualTo("suspended");
        assertThat(status.path("status").path("frozen").asBoolean()).as(status.toString()).isTrue();
        long frozenAt = count(n);
        Thread.sleep(1000); // twenty ticks of the counter, were it running
        assertThat(count(n)).as("a frozen process does not run").isEqualTo(frozenAt);

        JsonNode resumed = api.json("POST", "/v1/sandboxes/" + id + "/resume", Map.of(), null);
        assertThat(resumed.path("state").asString()).as(resumed.toString()).isEqualTo("running");
        assertThat(api.get("/v1/sandboxes/" + id).path("status").path("frozen").asBoolean()).isFalse();
        await().atMost(Duration.ofSeconds(20)).until(() -> count(n) > frozenAt + 3);
        // the same process went on: it was frozen, not restarted
        assertThat(api.get("/v1/sandboxes/" + id + "/processes").path("data").get(0).path("running").asBoolean()).isTrue();
    }

    private static long count(Path n) throws Exception {
        String s = Files.exists(n) ? Files.readString(n).trim() : "";
        return s.isEmpty() ? 0 : Long.parseLong(s);
    }

    private static ObjectNode obj() {
        return Json.object();
    }
}
