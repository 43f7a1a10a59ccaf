package dev.paddock.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.ResourceSecrets;
import dev.paddock.agents.ResourceSettings;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.egress.vault.FileSecretRepository;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The Files API and session resources over HTTP on a real Paddock (SQLite, subprocess driver, vault): multipart
 * uploads within max_upload_size and the tenant's storage quota, and the official TypeScript SDK's files and
 * sessions.resources calls. Repository tokens are sealed in the vault and never answered or written in plain text.
 */
class FilesAndResourcesTest {
    static final long MAX_UPLOAD = 64 * 1024;
    static final long QUOTA = 200 * 1024;
    static final String REPOSITORY = "https://github.com/acme/demo";
    static ScriptedModel model;
    static AgentsStack stack;
    static Rest api;
    static Vault vault;
    static Path vaultDir;

    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(n -> List.of(ScriptedModel.text("ok")));
        vaultDir = Files.createTempDirectory("paddock-vault");
        vault = new Vault(new FileSecretRepository(vaultDir.resolve("secrets")), VaultKey.fromDataDir(vaultDir));
        ResourceSettings resources = ResourceSettings.defaults().withSecrets(new VaultSecrets(vault));
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "test-model-key"), resources,
                h -> h.withCheckpointStorage(0, QUOTA), s -> s.withLimits(1024 * 1024, MAX_UPLOAD));
        api = new Rest(stack.baseUrl, stack.apiKey);
    }

    @AfterAll
    static void stop() throws IOException {
        stack.close();
        model.close();
        try (Stream<Path> files = Files.walk(vaultDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void uploadsAreRefusedPastMaxUploadSizeAndTheStorageQuotaAndBadFormsAreNamed() throws Exception {
        HttpResponse<String> big = upload("big.bin", new byte[(int) MAX_UPLOAD + 1]);
        assertThat(big.statusCode()).as(big.body()).isEqualTo(413);
        assertThat(big.body()).contains("file_upload_too_large").contains("max_upload_size");

        HttpResponse<String> notMultipart = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(stack.baseUrl + "/v1/files"))
                .header("x-api-key", stack.apiKey).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(notMultipart.statusCode()).isEqualTo(400);
        assertThat(notMultipart.body()).contains("invalid_upload");

        HttpResponse<String> longName = upload("n".repeat(256), new byte[1]);
        assertThat(longName.statusCode()).isEqualTo(400);
        assertThat(longName.body()).contains("file_name_invalid");
        HttpResponse<String> withPath = upload("../../etc/passwd", new byte[1]);
        assertThat(Rest.JSON.readTree(withPath.body()).get("filename").asString()).as("only the final path component is kept").isEqualTo("passwd");
        assertThat(delete("/v1/files/" + Rest.JSON.readTree(withPath.body()).get("id").asString())).isEqualTo(200);

        // the quota counts every file of the tenant: three of 60 KiB fit in 200 KiB, a fourth does not
        long before = stack.host.storedBytes("default");
        for (int i = 0; i < 3; i++) assertThat(upload("part" + i, new byte[60 * 1024]).statusCode()).isEqualTo(200);
        HttpResponse<String> over = upload("part3", new byte[60 * 1024]);
        assertThat(over.statusCode()).isEqualTo(409);
        assertThat(over.body()).contains("storage_quota_exceeded");
        assertThat(stack.host.storedBytes("default")).isEqualTo(before + 3 * 60 * 1024);
        for (JsonNode f : api.get("/v1/files?limit=100", Map.of()).body().get("data")) {
            if (f.get("filename").asString().startsWith("part")) assertThat(delete("/v1/files/" + f.get("id").asString())).isEqualTo(200);
        }
        assertThat(stack.host.storedBytes("default")).isEqualTo(before);
        try (Stream<Path> left = Files.list(stack.dataDir.resolve("files").resolve("default"))) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".partial"));
        }
    }

    @Test
    void theTypeScriptSdkUploadsFilesAndManagesSessionResources() throws Exception {
        Path sdk = NodeSdk.dir();
        Path script = sdk.resolve("ts-files-resources.mjs");
        try (InputStream in = getClass().getResourceAsStream("/agents/ts-files-resources.mjs")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        ProcessBuilder pb = new ProcessBuilder("node", script.toString()).directory(sdk.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("PADDOCK_BASE_URL", stack.baseUrl);
        pb.environment().put("PADDOCK_API_KEY", stack.apiKey);
        pb.environment().put("REPOSITORY_URL", REPOSITORY);
        Process node = pb.start();
        String stdout = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(node.exitValue()).as(stdout).isZero();
        JsonNode out = Rest.JSON.readTree(stdout);

        JsonNode uploaded = out.get("uploaded");
        String fileId = uploaded.get("id").asString();
        assertThat(fileId).startsWith("file_");
        assertThat(uploaded.get("type").asString()).isEqualTo("file");
        assertThat(uploaded.get("filename").asString()).isEqualTo("sdk notes.txt");
        assertThat(uploaded.get("mime_type").asString()).isEqualTo("text/plain");
        assertThat(uploaded.get("size_bytes").asLong()).isEqualTo("hello from the sdk\n".length());
        assertThat(out.get("metadata")).isEqualTo(uploaded);
        assertThat(out.get("listed")).as("two pages of one, newest first").hasSize(2);
        assertThat(out.get("listed").get(1).asString()).isEqualTo(fileId);
        assertThat(out.get("downloaded").asString()).isEqualTo("hello from the sdk\n");

        JsonNode resources = out.get("resources");
        assertThat(resources).hasSize(2);
        assertThat(resources.get(0).get("type").asString()).isEqualTo("file");
        assertThat(resources.get(0).get("file_id").asString()).isEqualTo(fileId);
        assertThat(resources.get(0).get("mount_path").asString()).isEqualTo("/mnt/session/uploads/" + fileId);
        assertThat(resources.get(1).get("id").asString()).startsWith("sesrsc_");
        assertThat(resources.get(1).get("url").asString()).isEqualTo(REPOSITORY);
        assertThat(resources.get(1).get("mount_path").asString()).isEqualTo("/workspace/demo");
        assertThat(resources.get(1).get("checkout").get("name").asString()).isEqualTo("main");
        assertThat(out.get("session_resources")).isEqualTo(resources);
        assertThat(out.get("retrieved")).isEqualTo(resources.get(1));
        assertThat(out.get("updated").get("updated_at").asString()).isNotNull();
        assertThat(out.get("added").get("mount_path").asString()).isEqualTo("/workspace/second.txt");
        assertThat(out.get("deleted_resource").get("type").asString()).isEqualTo("session_resource_deleted");
        assertThat(out.get("deleted_file").get("type").asString()).isEqualTo("file_deleted");
        assertThat(out.get("after_delete").asInt()).isEqualTo(404);
        assertThat(out.get("memory_store").get("status").asInt()).isEqualTo(400);
        assertThat(out.get("memory_store").get("code").asString()).isEqualTo("memory_stores_not_supported");
        assertThat(stdout).doesNotContain("ghp_sdk_secret_token").doesNotContain("ghp_sdk_rotated_token");

        // the rotated token is in the vault, sealed; the store's rows and files hold it nowhere in plain text
        String secretId = vault.list("default").stream().filter(m -> m.name().equals("session-resource." + resources.get(1).get("id").asString()))
                .findFirst().orElseThrow().id();
        assertThat(vault.reveal("default", secretId).reveal()).isEqualTo("ghp_sdk_rotated_token");
        for (Path f : List.of(stack.dataDir.resolve("paddock.db"), stack.dataDir.resolve("paddock.db-wal"))) {
            if (Files.exists(f)) assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).doesNotContain("ghp_sdk_");
        }
    }

    private static HttpResponse<String> upload(String filename, byte[] content) throws IOException, InterruptedException {
        String boundary = "paddock-" + System.nanoTime();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create(stack.baseUrl + "/v1/files")).header("x-api-key", stack.apiKey)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArrays(List.of(head, content, tail))).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static int delete(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(stack.baseUrl + path)).header("x-api-key", stack.apiKey).DELETE().build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The vault as the server's wiring hands it to session resources. */
    private record VaultSecrets(Vault vault) implements ResourceSecrets {
        @Override public String seal(String tenantId, String name, SecretValue token) { return vault.create(tenantId, name, token).id(); }
        @Override public void replace(String tenantId, String secretId, SecretValue token) { vault.rotate(tenantId, secretId, token); }
        @Override public SecretValue reveal(String tenantId, String secretId) { return vault.reveal(tenantId, secretId); }
        @Override public void delete(String tenantId, String secretId) { vault.delete(tenantId, secretId); }
    }
}
