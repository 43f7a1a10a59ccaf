package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.store.PageRequest;
import dev.paddock.access.ApiKeys;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.server.routes.egress.EgressRoutes;
import dev.paddock.server.routes.egress.SecretRoutes;
import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The vault and egress audit endpoints on a real stack (SQLite store, subprocess driver). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EgressApiTest {
    static final String VALUE = "api-test-secret-value-d41c8e";

    final Path dataDir;
    final JdbcStore store;
    final RuntimeHost host;
    final ApiKeys keys;
    final PaddockServer server;
    final Api admin;

    EgressApiTest() throws IOException {
        dataDir = Files.createTempDirectory("paddock-egress-api");
        store = JdbcStore.openSqlite(dataDir.resolve("paddock.db"));
        host = new RuntimeHost(HostConfig.defaults(dataDir).withDefaultDriver("subprocess"), store,
                List.of(new SubprocessDriver(dataDir)), Clock.systemUTC());
        host.start();
        keys = new ApiKeys(store.apiKeys(), Clock.systemUTC());
        server = new PaddockServer(host, keys, ServerConfig.defaults().withPort(0), List.of(
                new SecretRoutes(new Vault(store.secrets(), VaultKey.fromDataDir(dataDir))), new EgressRoutes(host, store.egressAudit())));
        admin = new Api(server.start(), keys.create(ApiKeys.DEFAULT_TENANT, "admin", true).secret());
    }

    @AfterAll
    void close() throws IOException {
        server.stop();
        host.close();
        store.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    Api tenant(String name) {
        return new Api(server.port(), keys.create("tenant-" + name + "-" + System.nanoTime(), name, false).secret());
    }

    @Test
    void secretsAreCreatedListedRotatedAndDeletedWithoutEverShowingTheValue() throws Exception {
        Api a = tenant("a");
        Api.Resp created = a.post("/v1/secrets", "{\"name\": \"openai\", \"value\": \"" + VALUE + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().path("id").asString();
        assertThat(id).startsWith("sec_");
        assertThat(created.json().path("name").asString()).isEqualTo("openai");
        assertThat(created.json().has("created_at")).isTrue();

        Api.Resp list = a.get("/v1/secrets");
        assertThat(list.json().path("data")).hasSize(1);
        Api.Resp rotated = a.post("/v1/secrets/" + id + "/rotate", "{\"value\": \"" + VALUE + "-next\"}");
        assertThat(rotated.status()).isEqualTo(200);
        assertThat(rotated.json().path("version").asInt()).isEqualTo(2);
        a.post("/v1/secrets", "{\"name\": \"openai\", \"value\": \"x\"}").error(409, "conflict_error", "secret_name_taken");

        Api b = tenant("b");
        assertThat(b.get("/v1/secrets").json().path("data")).isEmpty();
        b.get("/v1/secrets/" + id).error(404, "not_found_error", "not_found");
        b.post("/v1/secrets/" + id + "/rotate", "{\"value\": \"stolen\"}").error(404, "not_found_error", "not_found");
        b.delete("/v1/secrets/" + id).error(404, "not_found_error", "not_found");

        for (Api.Resp r : List.of(created, list, rotated, a.get("/v1/secrets/" + id))) assertThat(r.body()).doesNotContain(VALUE);
        assertThat(a.delete("/v1/secrets/" + id).status()).isEqualTo(204);
        assertThat(a.get("/v1/secrets").json().path("data")).isEmpty();
    }

    @Test
    void badSecretBodiesAreRefusedWithoutQuotingThem() {
        Api a = tenant("c");
        Api.Resp broken = a.post("/v1/secrets", "{\"name\": \"x\", \"value\": " + VALUE + "}");
        broken.error(400, "invalid_request_error", "invalid_json");
        assertThat(broken.body()).doesNotContain(VALUE);
        a.post("/v1/secrets", "{\"name\": \"x\"}").error(400, "invalid_request_error", "invalid_field");
        a.post("/v1/secrets", "{\"name\": \"bad name!\", \"value\": \"v\"}").error(400, "invalid_request_error", "invalid_secret_name");
        a.post("/v1/secrets", "{\"name\": \"empty\", \"value\": \"\"}").error(400, "invalid_request_error", "invalid_secret");
        a.post("/v1/secrets/sec_nope/rotate", "{\"value\": \"v\"}").error(400, "invalid_request_error", "invalid_id");
    }

    @Test
    void networkAndCredentialFieldsAreValidatedAtCreate() {
        Api a = tenant("d");
        String sec = "sec_0123456789abcdefghjkmnpqrs";
        assertThat(a.post("/v1/sandboxes", "{\"network\": {\"type\": \"limited\", \"allowed_hosts\": [\"bad host!\"]}}")
                .error(400, "invalid_request_error", "invalid_field").message()).contains("network.allowed_hosts[0]");
        assertThat(a.post("/v1/sandboxes", "{\"network\": {\"type\": \"none\", \"allow_package_managers\": true}}")
                .error(400, "invalid_request_error", "invalid_field").message()).contains("allow_package_managers");
        assertThat(a.post("/v1/sandboxes", "{\"credentials\": [{\"secret_id\": \"" + sec + "\", \"hosts\": [\"api.example.com\"], \"env\": \"K\"}]}")
                .error(400, "invalid_request_error", "invalid_field").message()).contains("need a network");
        String limited = "\"network\": {\"type\": \"limited\", \"allowed_hosts\": [\"api.example.com\"]}";
        assertThat(a.post("/v1/sandboxes", "{" + limited + ", \"credentials\": [{\"secret_id\": \"nope\", \"hosts\": [\"api.example.com\"]}]}")
                .error(400, "invalid_request_error", "invalid_field").message()).contains("credentials[0].secret_id");
        assertThat(a.post("/v1/sandboxes", "{" + limited + ", \"credentials\": [{\"secret_id\": \"" + sec + "\", \"hosts\": []}]}")
                .error(400, "invalid_request_error", "invalid_field").message()).contains("credentials[0].hosts");
        assertThat(a.post("/v1/sandboxes", "{" + limited + ", \"credentials\": [{\"secret_id\": \"" + sec + "\", \"hosts\": [\"api.example.com\"], \"template\": \"Bearer {secret}\"}]}")
                .error(400, "invalid_request_error", "invalid_field").message()).contains("needs a header");
        assertThat(a.post("/v1/sandboxes", "{" + limited + ", \"env\": {\"K\": \"v\"}, \"credentials\": [{\"secret_id\": \"" + sec + "\", \"hosts\": [\"api.example.com\"], \"env\": \"K\"}]}")
                .error(400, "invalid_request_error", "invalid_field").message()).contains("credentials[0].env");
        assertThat(a.post("/v1/sandboxes", "{" + limited + ", \"credentials\": [{\"secret_id\": \"" + sec + "\", \"hosts\": [\"api.example.com\"], \"header\": \"Host\"}]}")
                .error(400, "invalid_request_error", "invalid_field").message()).contains("cannot carry a credential");
        // valid, but this server runs no egress proxy: refused, never started with a wider network
        a.post("/v1/sandboxes", "{" + limited + "}").error(501, "not_implemented_error", "egress_unavailable");
    }

    @Test
    void egressRecordsArePagedStreamedAndTenantScoped() throws Exception {
        Api a = tenant("e");
        String id = a.createSandbox();
        for (int i = 0; i < 3; i++) store.egressAudit().record(record(id, "h" + i + ".example.com"));

        Api.Resp page = a.get("/v1/sandboxes/" + id + "/egress?limit=2");
        assertThat(page.status()).as(page.body()).isEqualTo(200);
        assertThat(page.json().path("data")).hasSize(2);
        assertThat(page.json().path("has_more").asBoolean()).isTrue();
        var first = page.json().path("data").get(0);
        assertThat(first.path("type").asString()).isEqualTo("egress_record");
        assertThat(first.path("host").asString()).isEqualTo("h0.example.com");
        assertThat(first.path("decision").asString()).isEqualTo("denied");
        assertThat(first.path("rule").asString()).isEqualTo("host_not_allowed");
        assertThat(first.path("duration_ms").asLong()).isEqualTo(7);
        String last = page.json().path("last_id").asString();
        assertThat(a.get("/v1/sandboxes/" + id + "/egress?after_id=" + last).json().path("data").get(0).path("host").asString()).isEqualTo("h2.example.com");

        tenant("f").get("/v1/sandboxes/" + id + "/egress").error(404, "not_found_error", "not_found");
        a.get("/v1/sandboxes/" + id + "/egress?after_id=egr_0123456789abcdefghjkmnpqrs").error(400, "invalid_request_error", "invalid_cursor");

        // records stay after the sandbox ended; the stream replays them, then ends
        a.delete("/v1/sandboxes/" + id);
        assertThat(a.get("/v1/sandboxes/" + id + "/egress").json().path("data")).hasSize(3);
        var stream = a.stream(a.request("GET", "/v1/sandboxes/" + id + "/egress", HttpRequest.BodyPublishers.noBody()).header("Accept", "text/event-stream"));
        assertThat(stream.statusCode()).isEqualTo(200);
        String body = new String(stream.body().readAllBytes(), StandardCharsets.UTF_8);
        var events = SseEvents.parse(body);
        assertThat(events).extracting(SseEvents.Event::name).containsExactly("egress", "egress", "egress", "end");
        assertThat(Api.JSON.readTree(events.get(2).data()).path("host").asString()).isEqualTo("h2.example.com");
        assertThat(store.egressAudit().list(id, PageRequest.first(10)).data()).hasSize(3);
    }

    private static EgressAuditRecord record(String sandboxId, String host) {
        return new EgressAuditRecord(sandboxId, Instant.now(), host, null, 443, "CONNECT", null, "connect_tunnel",
                EgressDecision.DENIED, "host_not_allowed", 403, 0, 0, Duration.ofMillis(7), List.of(), List.of());
    }
}
