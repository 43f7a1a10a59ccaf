package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/** The whole life of a sandbox over real HTTP: every resource of docs/API.md touched once. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxLifecycleTest {
    private final TestServer t = new TestServer();
    private final Api api = t.admin;

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void createGetAndDeleteAnswerTheSandboxObject() {
        var created = api.post("/v1/sandboxes", """
                {"limits": {"memory": "256m", "pids": 64, "cpus": 0.5}, "env": {"FOO": "bar"},
                 "timeout_seconds": 600, "idle": {"suspend_after_seconds": 300}}""");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode s = created.json();
        String id = s.path("id").asString();
        assertThat(id).startsWith("sbx_");
        assertThat(s.path("type").asString()).isEqualTo("sandbox");
        assertThat(s.path("driver").asString()).isEqualTo("subprocess");
        assertThat(s.path("state").asString()).isEqualTo("running");
        assertThat(s.path("limits").path("memory_bytes").asLong()).isEqualTo(256L << 20);
        assertThat(s.path("limits").path("pids").asInt()).isEqualTo(64);
        assertThat(s.path("limits").path("cpus").asDouble()).isEqualTo(0.5);
        assertThat(s.path("env").path("FOO").asString()).isEqualTo("bar");
        assertThat(s.path("network").path("type").asString()).isEqualTo("none");
        assertThat(s.path("timeout_seconds").asLong()).isEqualTo(600);
        assertThat(s.path("idle").path("suspend_after_seconds").asLong()).isEqualTo(300);
        assertThat(s.has("idle") && s.path("idle").has("terminate_after_seconds")).isTrue();
        assertThat(s.path("created_at").asString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(s.path("expires_at").asString()).endsWith("Z");
        assertThat(s.has("state_reason")).isTrue();
        assertThat(s.path("writable_rootfs").asBoolean(true)).isFalse();

        var got = api.get("/v1/sandboxes/" + id);
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.json().path("id").asString()).isEqualTo(id);
        assertThat(got.json().path("status").isObject()).as(got.body()).isTrue();
        assertThat(got.json().path("status").has("frozen")).isTrue();

        var deleted = api.delete("/v1/sandboxes/" + id);
        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.json().path("state").asString()).isEqualTo("terminated");
        assertThat(api.delete("/v1/sandboxes/" + id).json().path("state").asString()).as("idempotent").isEqualTo("terminated");
        assertThat(api.get("/v1/sandboxes/" + id).json().has("status")).isFalse();
    }

    @Test
    void listPagesNewestFirstAndHidesTerminatedUnlessAsked() {
        Api tenant = t.newTenant("lister");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) ids.add(tenant.createSandbox());

        var first = tenant.get("/v1/sandboxes?limit=2").json();
        assertThat(ids(first)).containsExactly(ids.get(2), ids.get(1));
        assertThat(first.path("has_more").asBoolean()).isTrue();
        assertThat(first.path("first_id").asString()).isEqualTo(ids.get(2));
        assertThat(first.path("last_id").asString()).isEqualTo(ids.get(1));

        var second = tenant.get("/v1/sandboxes?limit=2&after_id=" + first.path("last_id").asString()).json();
        assertThat(ids(second)).containsExactly(ids.get(0));
        assertThat(second.path("has_more").asBoolean()).isFalse();

        tenant.delete("/v1/sandboxes/" + ids.get(0));
        assertThat(ids(tenant.get("/v1/sandboxes").json())).containsExactly(ids.get(2), ids.get(1));
        assertThat(ids(tenant.get("/v1/sandboxes?include_terminated=true").json())).containsExactly(ids.get(2), ids.get(1), ids.get(0));
    }

    @Test
    void execAnswersJsonWithExitCodeOutputAndStdin() {
        String id = api.createSandbox();
        var r = api.post("/v1/sandboxes/" + id + "/exec", """
                {"argv": ["/bin/sh", "-c", "echo out; echo err >&2; cat; exit 3"], "stdin": "from stdin"}""");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode j = r.json();
        assertThat(j.path("exit_code").asInt()).isEqualTo(3);
        assertThat(j.path("stdout").asString()).isEqualTo("out\nfrom stdin");
        assertThat(j.path("stderr").asString()).isEqualTo("err\n");
        assertThat(j.path("timed_out").asBoolean(true)).isFalse();
        assertThat(j.path("stdout_truncated").asBoolean(true)).isFalse();
        assertThat(j.has("duration_ms") && j.has("signal") && j.has("oom_killed")).isTrue();

        var shell = api.post("/v1/sandboxes/" + id + "/exec", "{\"command\": \"echo hi | wc -c\", \"env\": {\"X\": \"1\"}}");
        assertThat(shell.json().path("stdout").asString().strip()).isEqualTo("3");

        var b64 = api.post("/v1/sandboxes/" + id + "/exec", "{\"argv\": [\"cat\"], \"stdin_base64\": \"AAEC\"}");
        assertThat(b64.json().path("stdout").asString()).isEqualTo("\u0000\u0001\u0002");
    }

    @Test
    void execOutputOverOneMebibyteIsTruncatedAndFlagged() {
        String id = api.createSandbox();
        var r = api.post("/v1/sandboxes/" + id + "/exec", "{\"command\": \"head -c 1200000 /dev/zero | tr '\\\\0' a\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().path("stdout").asString()).hasSize(1 << 20);
        assertThat(r.json().path("stdout_truncated").asBoolean()).isTrue();
        assertThat(r.json().path("stderr_truncated").asBoolean()).isFalse();
    }

    @Test
    void execStreamsServerSentEventsEndingWithExit() throws Exception {
        String id = api.createSandbox();
        var req = api.request("POST", "/v1/sandboxes/" + id + "/exec",
                        java.net.http.HttpRequest.BodyPublishers.ofString("{\"command\": \"echo one; echo two >&2; exit 4\"}"))
                .header("Accept", "text/event-stream");
        var r = api.send(req);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        List<SseEvents.Event> events = SseEvents.parse(r.body());
        String stdout = SseEvents.decoded(events, "stdout");
        String stderr = SseEvents.decoded(events, "stderr");
        assertThat(stdout).isEqualTo("one\n");
        assertThat(stderr).isEqualTo("two\n");
        SseEvents.Event last = events.getLast();
        assertThat(last.name()).isEqualTo("exit");
        JsonNode exit = Api.JSON.readTree(last.data());
        assertThat(exit.path("exit_code").asInt()).isEqualTo(4);
        assertThat(exit.has("stdout")).isFalse();
    }

    @Test
    void filesRoundTripThroughEveryFileEndpoint() {
        String id = api.createSandbox();
        String files = "/v1/sandboxes/" + id + "/files";
        byte[] content = "hello paddock\n".getBytes(StandardCharsets.UTF_8);

        var put = api.put(files + "/content?path=dir/a.txt", content);
        assertThat(put.status()).as(put.body()).isEqualTo(200);
        assertThat(put.json().path("path").asString()).isEqualTo("/workspace/dir/a.txt");
        assertThat(put.json().path("type").asString()).isEqualTo("file");
        assertThat(put.json().path("size").asLong()).isEqualTo(content.length);

        var read = api.get(files + "/content?path=/workspace/dir/a.txt");
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.bytes()).isEqualTo(content);
        assertThat(read.headers().firstValue("content-type").orElse("")).startsWith("application/octet-stream");

        var stat = api.get(files + "/stat?path=dir/a.txt").json();
        assertThat(stat.path("name").asString()).isEqualTo("a.txt");
        assertThat(stat.has("mode") && stat.has("modified_at") && stat.has("link_target")).isTrue();

        var mkdir = api.post(files + "/mkdir?path=dir/sub", null);
        assertThat(mkdir.status()).as(mkdir.body()).isEqualTo(200);
        assertThat(mkdir.json().path("type").asString()).isEqualTo("directory");

        var list = api.get(files + "/list?path=dir").json();
        assertThat(StreamSupport.stream(list.path("data").spliterator(), false).map(e -> e.path("name").asString()))
                .containsExactlyInAnyOrder("a.txt", "sub");

        assertThat(api.delete(files + "?path=dir/a.txt").status()).isEqualTo(204);
        api.get(files + "/stat?path=dir/a.txt").error(404, "not_found_error", null);
        api.delete(files + "?path=dir").error(409, "conflict_error", "directory_not_empty");
        assertThat(api.delete(files + "?path=dir&recursive=true").status()).isEqualTo(204);
    }

    @Test
    void uploadsLargerThanTheJsonLimitStreamThroughWhateverTheirContentType() {
        String id = api.createSandbox();
        byte[] big = new byte[(int) ServerConfig.DEFAULT_MAX_JSON_BYTES * 2 + 7];
        new java.util.Random(7).nextBytes(big);
        // curl --data-binary sends a form content type; the bytes must still arrive untouched
        var put = api.send(api.request("PUT", "/v1/sandboxes/" + id + "/files/content?path=blob.bin",
                java.net.http.HttpRequest.BodyPublishers.ofByteArray(big)).header("content-type", "application/x-www-form-urlencoded"));
        assertThat(put.status()).as(put.body()).isEqualTo(200);
        assertThat(put.json().path("size").asLong()).isEqualTo(big.length);
        assertThat(api.get("/v1/sandboxes/" + id + "/files/content?path=blob.bin").bytes()).isEqualTo(big);
    }

    @Test
    void archiveDownloadsAndUploadsATree() throws Exception {
        String id = api.createSandbox();
        String files = "/v1/sandboxes/" + id + "/files";
        api.put(files + "/content?path=src/a.txt", "A".getBytes());
        api.put(files + "/content?path=src/deep/b.txt", "BB".getBytes());

        var tar = api.get(files + "/archive?path=src");
        assertThat(tar.status()).isEqualTo(200);
        assertThat(tar.headers().firstValue("content-type").orElse("")).startsWith("application/x-tar");
        assertThat(tarNames(tar.bytes())).anyMatch(n -> n.endsWith("a.txt")).anyMatch(n -> n.endsWith("deep/b.txt"));

        var up = api.put(files + "/archive?path=copy", tar.bytes());
        assertThat(up.status()).as(up.body()).isEqualTo(204);
        List<String> names = new ArrayList<>();
        api.get(files + "/list?path=copy").json().path("data").forEach(e -> names.add(e.path("name").asString()));
        assertThat(names).isNotEmpty();
        var found = api.post("/v1/sandboxes/" + id + "/exec", "{\"command\": \"find copy -type f | sort | xargs cat\"}");
        assertThat(found.json().path("stdout").asString()).isEqualTo("ABB");
    }

    @Test
    void checkpointsCreateListDownloadAndRestore() throws Exception {
        String id = api.createSandbox();
        String files = "/v1/sandboxes/" + id + "/files";
        api.put(files + "/content?path=state.txt", "v1".getBytes());

        var cp = api.post("/v1/sandboxes/" + id + "/checkpoints", null);
        assertThat(cp.status()).as(cp.body()).isEqualTo(201);
        String cpId = cp.json().path("id").asString();
        assertThat(cpId).startsWith("cp_");
        assertThat(cp.json().path("sandbox_id").asString()).isEqualTo(id);
        assertThat(cp.json().path("kind").asString()).isEqualTo("workspace_tar");

        var list = api.get("/v1/sandboxes/" + id + "/checkpoints").json();
        assertThat(ids(list)).containsExactly(cpId);

        var archive = api.get("/v1/checkpoints/" + cpId + "/archive");
        assertThat(archive.status()).isEqualTo(200);
        assertThat(archive.bytes().length).isEqualTo(cp.json().path("size_bytes").asLong());
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(archive.bytes())))
                .isEqualTo(cp.json().path("sha256").asString());

        api.put(files + "/content?path=state.txt", "v2".getBytes());
        api.put(files + "/content?path=extra.txt", "x".getBytes());
        var restored = api.post("/v1/sandboxes/" + id + "/checkpoints/" + cpId + "/restore", null);
        assertThat(restored.status()).as(restored.body()).isEqualTo(200);
        assertThat(restored.json().path("type").asString()).isEqualTo("sandbox");
        assertThat(api.get(files + "/content?path=state.txt").body()).isEqualTo("v1");
        api.get(files + "/stat?path=extra.txt").error(404, "not_found_error", null);
    }

    @Test
    void eventsListTheLifecycleOldestFirst() {
        String id = api.createSandbox();
        api.delete("/v1/sandboxes/" + id);
        var r = api.get("/v1/sandboxes/" + id + "/events");
        assertThat(r.status()).isEqualTo(200);
        List<String> types = new ArrayList<>();
        r.json().path("data").forEach(e -> {
            assertThat(e.path("id").asString()).startsWith("evt_");
            assertThat(e.has("at") && e.has("data")).isTrue();
            types.add(e.path("type").asString());
        });
        assertThat(types).startsWith("sandbox.creating").endsWith("sandbox.terminated");
        var paged = api.get("/v1/sandboxes/" + id + "/events?limit=1").json();
        assertThat(paged.path("data").size()).isEqualTo(1);
        assertThat(paged.path("has_more").asBoolean()).isTrue();
    }

    @Test
    void backgroundProcessesStartListLogAndSignal() {
        String id = api.createSandbox();
        String procs = "/v1/sandboxes/" + id + "/processes";
        var started = api.post(procs, "{\"command\": \"echo started; exec sleep 60\"}");
        assertThat(started.status()).as(started.body()).isEqualTo(201);
        long pid = started.json().path("pid").asLong();
        assertThat(started.json().path("running").asBoolean()).isTrue();
        assertThat(started.json().has("argv") && started.json().has("started_at") && started.json().has("exit_code")).isTrue();

        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(api.get(procs + "/" + pid + "/logs").body()).isEqualTo("started\n"));
        assertThat(api.get(procs + "/" + pid + "/logs?offset=2&limit=3").body()).isEqualTo("art");
        assertThat(api.get(procs).json().path("data").size()).isEqualTo(1);

        var signalled = api.post(procs + "/" + pid + "/signal", "{\"signal\": \"TERM\"}");
        assertThat(signalled.status()).as(signalled.body()).isEqualTo(204);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(api.get(procs).json().path("data").get(0).path("running").asBoolean()).isFalse());
    }

    @Test
    void suspendAndResumeAnswerUnsupportedAsTheSubprocessDriverClaims() {
        // exactly what the driver's conformance record says; bwrap's supported path is BwrapSuspendResumeEndToEndTest
        assertThat(api.get("/v1/drivers").json().path("data").get(0).path("lifecycle").path("suspend_resume").asString()).isEqualTo("unsupported");
        String id = api.createSandbox();
        api.post("/v1/sandboxes/" + id + "/suspend", null).error(501, "not_implemented_error", "unsupported_capability");
        assertThat(api.get("/v1/sandboxes/" + id).json().path("state").asString()).as("a refused suspend leaves the sandbox as it was").isEqualTo("running");
        // resuming a running sandbox asks nothing of the driver: it answers the sandbox as it is
        var resumed = api.post("/v1/sandboxes/" + id + "/resume", null);
        assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
        assertThat(resumed.json().path("state").asString()).isEqualTo("running");
    }

    private static List<String> ids(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.path("data").forEach(e -> out.add(e.path("id").asString()));
        return out;
    }

    private static List<String> tarNames(byte[] tar) throws Exception {
        List<String> names = new ArrayList<>();
        try (var in = new TarArchiveInputStream(new ByteArrayInputStream(tar))) {
            for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) names.add(e.getName());
        }
        return names;
    }
}
