package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.server.routes.FileWatchRoutes;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Forking a sandbox, watching its files and changing its network over real HTTP, on the subprocess driver (which
 * can be forked and watched, and has no network to change).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForkWatchNetworkApiTest {
    private final TestServer t = new TestServer();
    private final Api api = t.admin;

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void aForkHasTheSettingsAndACopyOfTheWorkspaceAndGoesItsOwnWay() {
        var created = api.post("/v1/sandboxes", "{\"env\": {\"FOO\": \"bar\"}, \"timeout_seconds\": 600}");
        String source = created.json().path("id").asString();
        assertThat(api.put("/v1/sandboxes/" + source + "/files/content?path=/workspace/src/a.txt", "one".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(200);

        var fork = api.post("/v1/sandboxes/" + source + "/fork", null);
        assertThat(fork.status()).as(fork.body()).isEqualTo(201);
        String forked = fork.json().path("id").asString();
        assertThat(forked).startsWith("sbx_").isNotEqualTo(source);
        assertThat(fork.json().path("env").path("FOO").asString()).isEqualTo("bar");
        assertThat(fork.json().path("timeout_seconds").asLong()).isEqualTo(600);
        assertThat(api.get("/v1/sandboxes/" + forked + "/files/content?path=/workspace/src/a.txt").body()).isEqualTo("one");

        api.put("/v1/sandboxes/" + forked + "/files/content?path=/workspace/src/a.txt", "changed in the fork".getBytes(StandardCharsets.UTF_8));
        assertThat(api.get("/v1/sandboxes/" + source + "/files/content?path=/workspace/src/a.txt").body()).as("the source is untouched").isEqualTo("one");
        assertThat(api.get("/v1/sandboxes/" + source + "/events").body()).contains("sandbox.forked");
        assertThat(api.get("/v1/sandboxes/" + forked + "/events").body()).contains("sandbox.forked_from");

        api.delete("/v1/sandboxes/" + source);
        api.post("/v1/sandboxes/" + source + "/fork", null).error(409, "conflict_error", "sandbox_not_running");
        t.newTenant("fork-other").post("/v1/sandboxes/" + forked + "/fork", null).error(404, "not_found_error", "not_found");
    }

    @Test
    void anEndpointThatTakesNoBodyRefusesOneInsteadOfIgnoringIt() {
        String source = api.createSandbox();
        int before = api.get("/v1/sandboxes?limit=100").json().path("data").size();
        for (String action : List.of("fork", "suspend", "resume")) {
            String path = "/v1/sandboxes/" + source + "/" + action;
            api.post(path, "{").error(400, "invalid_request_error", "invalid_json");
            api.post(path, "[]").error(400, "invalid_request_error", "invalid_json");
            api.post(path, "null").error(400, "invalid_request_error", "invalid_json");
            api.post(path, "{\"bogus\":1}").error(400, "invalid_request_error", "unknown_field");
        }
        assertThat(api.get("/v1/sandboxes?limit=100").json().path("data").size()).as("no refused fork made a sandbox").isEqualTo(before);
        // none, or {} as SDKs send it, is what these endpoints take
        assertThat(api.post("/v1/sandboxes/" + source + "/fork", "{}").status()).isEqualTo(201);
        assertThat(api.post("/v1/sandboxes/" + source + "/resume", null).status()).isEqualTo(200);
    }

    @Test
    void snapshotsAreNamedCheckpointsOfTheTenantThatNewSandboxesStartFrom() {
        String source = api.createSandbox();
        api.put("/v1/sandboxes/" + source + "/files/content?path=/workspace/state.txt", "saved".getBytes(StandardCharsets.UTF_8));
        var snap = api.post("/v1/snapshots", "{\"sandbox_id\": \"" + source + "\", \"name\": \"base-1\"}");
        assertThat(snap.status()).as(snap.body()).isEqualTo(201);
        assertThat(snap.json().path("type").asString()).isEqualTo("snapshot");
        assertThat(snap.json().path("kind").asString()).isEqualTo("workspace_tar");
        assertThat(snap.json().path("checkpoint_id").asString()).startsWith("cp_");
        assertThat(api.get("/v1/sandboxes/" + source + "/checkpoints").body()).as("a snapshot is one of its sandbox's checkpoints")
                .contains(snap.json().path("checkpoint_id").asString());
        api.post("/v1/snapshots", "{\"sandbox_id\": \"" + source + "\", \"name\": \"base-1\"}").error(409, "conflict_error", "duplicate_name");
        api.post("/v1/snapshots", "{\"sandbox_id\": \"" + source + "\", \"name\": \"Bad Name\"}").error(400, "invalid_request_error", "invalid_field");
        api.post("/v1/snapshots", "{\"name\": \"x\"}").error(400, "invalid_request_error", "missing_field");
        assertThat(api.get("/v1/snapshots").json().path("data")).anyMatch(n -> n.path("name").asString().equals("base-1"));

        api.put("/v1/sandboxes/" + source + "/files/content?path=/workspace/state.txt", "changed later".getBytes(StandardCharsets.UTF_8));
        var started = api.post("/v1/sandboxes", "{\"from_snapshot\": \"base-1\"}");
        assertThat(started.status()).as(started.body()).isEqualTo(201);
        String id = started.json().path("id").asString();
        assertThat(api.get("/v1/sandboxes/" + id + "/files/content?path=/workspace/state.txt").body()).isEqualTo("saved");
        api.post("/v1/sandboxes", "{\"from_snapshot\": \"base-1\", \"env\": {\"A\": \"b\"}}").error(400, "invalid_request_error", "invalid_field");

        Api other = t.newTenant("snap-other");
        other.get("/v1/snapshots/base-1").error(404, "not_found_error", "not_found");
        other.post("/v1/sandboxes", "{\"from_snapshot\": \"base-1\"}").error(404, "not_found_error", "not_found");
        assertThat(other.get("/v1/snapshots").json().path("data")).isEmpty();
        other.delete("/v1/snapshots/base-1").error(404, "not_found_error", "not_found");

        assertThat(api.delete("/v1/snapshots/base-1").status()).isEqualTo(204);
        api.get("/v1/snapshots/base-1").error(404, "not_found_error", "not_found");
    }

    @Test
    void aWatchStreamsChangesAsSandboxPathsAndEndsWithTheSandbox() throws Exception {
        String id = api.createSandbox();
        api.post("/v1/sandboxes/" + id + "/files/mkdir?path=/workspace/dir", null);
        HttpResponse<InputStream> stream = api.stream(api.request("GET", "/v1/sandboxes/" + id + "/files/watch?path=/workspace/dir&recursive=true",
                HttpRequest.BodyPublishers.noBody()).header("Accept", "text/event-stream"));
        assertThat(stream.statusCode()).isEqualTo(200);
        List<String> lines = new ArrayList<>();
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (var in = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                }
            } catch (Exception ignored) {
                // the stream ended
            }
        });
        // the stream is open (its first comment arrived) before the change is made
        await().until(() -> { synchronized (lines) { return !lines.isEmpty(); } });
        api.put("/v1/sandboxes/" + id + "/files/content?path=/workspace/dir/new.txt", "x".getBytes(StandardCharsets.UTF_8));
        await().until(() -> { synchronized (lines) { return lines.contains("data: {\"type\":\"created\",\"path\":\"/workspace/dir/new.txt\"}"); } });

        api.delete("/v1/sandboxes/" + id);
        reader.get(20, TimeUnit.SECONDS);
        assertThat(lines).contains("event: end", "data: {\"reason\":\"sandbox_ended\"}")
                .noneMatch(l -> l.contains(t.dataDir.toString()));
    }

    @Test
    void watchesAreRefusedBeforeTheStreamOpensWithAPreciseError() {
        String id = api.createSandbox();
        api.put("/v1/sandboxes/" + id + "/files/content?path=/workspace/f.txt", "x".getBytes(StandardCharsets.UTF_8));
        api.get("/v1/sandboxes/" + id + "/files/watch").error(406, "invalid_request_error", "not_acceptable");
        watch(id, "?path=/workspace/f.txt").error(400, "invalid_request_error", "not_a_directory");
        watch(id, "?path=/etc").error(400, "invalid_request_error", "path_outside_workspace");
        watch(id, "?path=/workspace/missing").error(404, "not_found_error", "file_not_found");
        api.delete("/v1/sandboxes/" + id);
        watch(id, "").error(409, "conflict_error", "sandbox_not_running");
    }

    @Test
    void oneTenantCannotTakeEveryWatchSlotOfTheServer() throws Exception {
        Api tenant = t.newTenant("watcher");
        String id = tenant.createSandbox();
        List<HttpResponse<InputStream>> open = new ArrayList<>();
        try {
            for (int i = 0; i < FileWatchRoutes.MAX_WATCHES_PER_TENANT; i++) {
                HttpResponse<InputStream> s = tenant.stream(tenant.request("GET", "/v1/sandboxes/" + id + "/files/watch",
                        HttpRequest.BodyPublishers.noBody()).header("Accept", "text/event-stream"));
                assertThat(s.statusCode()).isEqualTo(200);
                open.add(s);
            }
            tenant.send(tenant.request("GET", "/v1/sandboxes/" + id + "/files/watch", HttpRequest.BodyPublishers.noBody())
                    .header("Accept", "text/event-stream")).error(429, "rate_limit_error", "too_many_watches");

            String other = api.createSandbox();
            HttpResponse<InputStream> s = api.stream(api.request("GET", "/v1/sandboxes/" + other + "/files/watch",
                    HttpRequest.BodyPublishers.noBody()).header("Accept", "text/event-stream"));
            assertThat(s.statusCode()).as("another tenant still gets a watch").isEqualTo(200);
            open.add(s);
        } finally {
            for (HttpResponse<InputStream> s : open) s.body().close();
        }
        // the slots come back when the clients leave
        await().untilAsserted(() -> {
            HttpResponse<InputStream> again = tenant.stream(tenant.request("GET", "/v1/sandboxes/" + id + "/files/watch",
                    HttpRequest.BodyPublishers.noBody()).header("Accept", "text/event-stream"));
            again.body().close();
            assertThat(again.statusCode()).isEqualTo(200);
        });
    }

    private Api.Resp watch(String id, String query) {
        return api.send(api.request("GET", "/v1/sandboxes/" + id + "/files/watch" + query, HttpRequest.BodyPublishers.noBody())
                .header("Accept", "text/event-stream"));
    }

    @Test
    void aDriverWithoutNetworkChangesRefusesThemAndBadPoliciesAreRefusedLikeACreates() {
        String id = api.createSandbox();
        api.call("PATCH", "/v1/sandboxes/" + id + "/network", "{\"type\": \"limited\", \"allowed_hosts\": [\"bad host!\"]}")
                .error(400, "invalid_request_error", "invalid_field");
        api.call("PATCH", "/v1/sandboxes/" + id + "/network", "{\"allowed_hosts\": [\"example.com\"]}")
                .error(400, "invalid_request_error", "missing_field");
        api.call("PATCH", "/v1/sandboxes/" + id + "/network", "{\"type\": \"limited\", \"surprise\": 1}")
                .error(400, "invalid_request_error", "unknown_field");
        api.call("PATCH", "/v1/sandboxes/" + id + "/network", "{\"type\": \"limited\", \"allowed_hosts\": [\"example.com\"]}")
                .error(501, "not_implemented_error", "unsupported_capability");
    }
}
