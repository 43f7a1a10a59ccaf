package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.SessionNetworkEndToEndTest.ToolCallingModel;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Session resources end to end, with real bwrap: a file uploaded through the Files API (multipart) and a repository
 * served by {@code git http-backend} on loopback (the server's {@code github_base_url}) behind a token check. The
 * scripted model's one bash call reads both; the token is nowhere in the sandbox afterwards (its files, processes'
 * environments and command lines) nor in any answer; a wrong token and an unknown repository end the turn with the
 * SDK's session errors, as does a branch the repository lacks.
 */
@Tag("bwrap")
class SessionResourcesEndToEndTest {
    static final String FILE_TEXT = "notes from the uploaded file";
    static final String README = "hello from the cloned repository";

    String token;
    GitHttpServer git;
    ToolCallingModel model;
    Path dataDir;
    PaddockApp app;
    PaddockClient api;
    String apiKey;

    @BeforeEach
    void start() throws Exception {
        token = "ghp_paddockTestToken" + Long.toHexString(System.nanoTime());
        git = new GitHttpServer(Files.createTempDirectory("git-root"), token);
        git.createRepository("acme", "demo", Map.of("README.md", README + "\n"));
        model = new ToolCallingModel("cat /mnt/session/uploads/*; echo; cat /workspace/demo/README.md; ls -ld /mnt/session/uploads");
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pr");
        ServeSettings settings = ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "bwrap",
                "model_base_url", model.baseUrl(), "model_api_key", "test-model-key", "github_base_url", git.baseUrl()), Map.of(), null, dataDir);
        app = PaddockApp.start(settings);
        apiKey = app.createdAdminKey().orElseThrow();
        api = new PaddockClient(app.url(), apiKey);
    }

    @AfterEach
    void stop() throws Exception {
        try {
            app.close();
        } finally {
            git.close();
            model.close();
            BwrapDriver bwrap = new BwrapDriver(BwrapConfig.defaults(dataDir));
            bwrap.list().forEach(bwrap::destroy);
            BwrapServer.removeDataDir(dataDir);
        }
    }

    @Test
    void aSessionReadsItsFileAndClonedRepositoryAndTheTokenIsNowhereInTheSandbox() throws Exception {
        JsonNode file = upload("notes.txt", FILE_TEXT.getBytes(StandardCharsets.UTF_8));
        String fileId = file.path("id").asString();
        assertThat(fileId).startsWith("file_");
        assertThat(file.path("filename").asString()).isEqualTo("notes.txt");
        assertThat(file.path("size_bytes").asLong()).isEqualTo(FILE_TEXT.length());

        String sessionId = runSession(resources(fileId, git.baseUrl() + "acme/demo", token));

        assertThat(model.toolResults).hasSize(1);
        assertThat(model.toolResults.getFirst()).contains(FILE_TEXT).contains(README);
        String basic = "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + token).getBytes(StandardCharsets.UTF_8));
        assertThat(git.authorizations).as("the clone sent the token to the git server").contains(basic);

        JsonNode listed = api.get("/v1/sessions/" + sessionId + "/resources");
        assertThat(listed.path("data")).hasSize(2);
        assertThat(listed.path("data").get(0).path("mount_path").asString()).isEqualTo("/mnt/session/uploads/" + fileId);
        assertThat(listed.path("data").get(1).path("mount_path").asString()).isEqualTo("/workspace/demo");
        assertThat(listed.toString()).doesNotContain(token);
        assertThat(api.get("/v1/sessions/" + sessionId).toString()).doesNotContain(token);

        String sandboxId = api.get("/v1/sessions/" + sessionId).path("paddock_sandbox_id").asString();
        String gitConfig = new String(api.call("GET", "/v1/sandboxes/" + sandboxId + "/files/content",
                Map.of("path", "/workspace/demo/.git/config"), null), StandardCharsets.UTF_8);
        assertThat(gitConfig).contains("url = " + git.baseUrl() + "acme/demo").doesNotContain(token).doesNotContain("extraHeader");
        // every file a sandbox process can write or read as its own, and every process's environment and command line
        assertThat(grepSandbox(sandboxId, FILE_TEXT)).as("the scan reaches the resources").contains("/workspace/.paddock/uploads/" + fileId);
        assertThat(grepSandbox(sandboxId, token + "\n" + basic.substring("Basic ".length()))).as("no file holds the token").isEmpty();
        String readme = new String(api.call("GET", "/v1/sandboxes/" + sandboxId + "/files/content", Map.of("path", "/workspace/demo/README.md"), null),
                StandardCharsets.UTF_8);
        assertThat(readme).isEqualTo(README + "\n");

        // a resource added while the sandbox runs is laid into it at once
        ObjectNode add = Json.object().put("type", "file").put("file_id", fileId).put("mount_path", "/workspace/added/notes.txt");
        assertThat(api.json("POST", "/v1/sessions/" + sessionId + "/resources", Map.of(), add).path("id").asString()).startsWith("sesrsc_");
        String added = new String(api.call("GET", "/v1/sandboxes/" + sandboxId + "/files/content", Map.of("path", "/workspace/added/notes.txt"), null),
                StandardCharsets.UTF_8);
        assertThat(added).isEqualTo(FILE_TEXT);
    }

    @Test
    void aWrongTokenAnUnknownRepositoryAndAMissingBranchEndTheTurnWithTheSdksErrors() throws Exception {
        String fileId = upload("a.txt", "a".getBytes(StandardCharsets.UTF_8)).path("id").asString();

        String wrong = runSession(resources(fileId, git.baseUrl() + "acme/demo", "ghp_wrong"));
        JsonNode error = lastError(wrong);
        assertThat(error.path("type").asString()).isEqualTo("repository_authentication_error");
        assertThat(error.path("repository_url").asString()).isEqualTo(git.baseUrl() + "acme/demo");
        assertThat(error.path("message").asString()).doesNotContain("ghp_wrong");

        String missing = runSession(resources(fileId, git.baseUrl() + "acme/missing", token));
        assertThat(lastError(missing).path("type").asString()).isEqualTo("repository_not_found_error");

        ArrayNode noBranch = resources(fileId, git.baseUrl() + "acme/demo", token);
        ((ObjectNode) noBranch.get(1)).putObject("checkout").put("type", "branch").put("name", "no-such-branch");
        assertThat(lastError(runSession(noBranch)).path("type").asString()).isEqualTo("repository_checkout_error");
        assertThat(model.toolResults).as("the model never got to run bash").isEmpty();
    }

    /** The sandbox paths that hold any of the lines of {@code patterns} (passed on stdin, so no command line carries them). */
    private List<String> grepSandbox(String sandboxId, String patterns) {
        ObjectNode exec = Json.object().put("timeout_seconds", 120).put("stdin", patterns + "\n");
        ArrayNode argv = exec.putArray("argv");
        List.of("/bin/sh", "-c", "set --; for p in /workspace /mnt /tmp /etc /home /root /run /var /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do "
                + "[ -e \"$p\" ] && set -- \"$@\" \"$p\"; done; grep -rsIl -F -f - \"$@\"; true").forEach(argv::add);
        JsonNode r = api.json("POST", "/v1/sandboxes/" + sandboxId + "/exec", Map.of(), exec);
        return r.path("stdout").asString().lines().filter(l -> !l.isBlank()).toList();
    }

    private ArrayNode resources(String fileId, String url, String authorization) {
        ArrayNode resources = Json.array();
        resources.addObject().put("type", "file").put("file_id", fileId);
        resources.addObject().put("type", "github_repository").put("url", url).put("authorization_token", authorization);
        return resources;
    }

    /** Creates a session with the resources, sends "go" and waits until its turn ended. */
    private String runSession(ArrayNode resources) {
        ObjectNode env = Json.object().put("name", "env-" + System.nanoTime());
        env.putObject("config").put("type", "cloud");
        String envId = api.json("POST", "/v1/environments", Map.of(), env).path("id").asString();
        ObjectNode body = Json.object().put("agent", AgentSessions.toolsetAgent(api)).put("environment_id", envId);
        body.set("resources", resources);
        String id = api.json("POST", "/v1/sessions", Map.of(), body).path("id").asString();
        ObjectNode send = Json.object();
        send.putArray("events").addObject().put("type", "user.message").putArray("content").addObject().put("type", "text").put("text", "go");
        api.json("POST", "/v1/sessions/" + id + "/events", Map.of(), send);
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> idleAfterTurn(id));
        return id;
    }

    private boolean idleAfterTurn(String sessionId) {
        for (JsonNode e : events(sessionId)) if ("session.status_idle".equals(e.path("type").asString())) return true;
        return false;
    }

    private JsonNode lastError(String sessionId) {
        JsonNode last = null;
        for (JsonNode e : events(sessionId)) if ("session.error".equals(e.path("type").asString())) last = e.path("error");
        assertThat(last).as("a session.error").isNotNull();
        return last;
    }

    private List<JsonNode> events(String sessionId) {
        List<JsonNode> out = new ArrayList<>();
        api.get("/v1/sessions/" + sessionId + "/events", Map.of("limit", 100)).path("data").forEach(out::add);
        return out;
    }

    /** Uploads as the SDKs do: multipart/form-data with one part named {@code file}. */
    private JsonNode upload(String filename, byte[] content) throws IOException, InterruptedException {
        String boundary = "paddock-test-" + System.nanoTime();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
                + "\"\r\nContent-Type: text/plain\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create(app.url() + "/v1/files"))
                .header("x-api-key", apiKey).header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArrays(List.of(head, content, tail))).build();
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            assertThat(response.statusCode()).as(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo(200);
            return PaddockClient.parse(response.body());
        }
    }
}
