package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Who may call what: keys, tenants and admin rights. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthTest {
    private final TestServer t = new TestServer();

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void missingOrUnknownKeyIsRefusedWith401() {
        t.as(null).get("/v1/sandboxes").error(401, "authentication_error", "missing_api_key");
        t.as("pdk_not-a-real-key-at-all-000000").get("/v1/sandboxes").error(401, "authentication_error", "invalid_api_key");
        t.as("").get("/v1/drivers").error(401, "authentication_error", "missing_api_key");
    }

    @Test
    void bearerHeaderAuthenticatesLikeXApiKey() {
        var noKey = t.as(null);
        var r = noKey.send(noKey.request("GET", "/v1/sandboxes", HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + t.adminKey));
        assertThat(r.status()).isEqualTo(200);
        var basic = noKey.send(noKey.request("GET", "/v1/sandboxes", HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Basic " + t.adminKey));
        basic.error(401, "authentication_error", "missing_api_key");
    }

    @Test
    void healthAndMetricsNeedNoKey() {
        var anon = t.as(null);
        assertThat(anon.get("/v1/health").status()).isEqualTo(200);
        assertThat(anon.get("/metrics").status()).isEqualTo(200);
    }

    @Test
    void anotherTenantsSandboxIsNotFound() {
        Api a = t.newTenant("a");
        Api b = t.newTenant("b");
        String id = a.createSandbox();
        a.put("/v1/sandboxes/" + id + "/files/content?path=secret.txt", "a's".getBytes());
        String base = "/v1/sandboxes/" + id;

        b.get(base).error(404, "not_found_error", "not_found");
        b.post(base + "/exec", "{\"argv\": [\"true\"]}").error(404, "not_found_error", "not_found");
        b.get(base + "/files/content?path=secret.txt").error(404, "not_found_error", "not_found");
        b.put(base + "/files/content?path=x.txt", "b".getBytes()).error(404, "not_found_error", "not_found");
        b.get(base + "/events").error(404, "not_found_error", "not_found");
        b.post(base + "/checkpoints", null).error(404, "not_found_error", "not_found");
        b.delete(base).error(404, "not_found_error", "not_found");
        assertThat(b.get("/v1/sandboxes?include_terminated=true").json().path("data").size()).isZero();

        var cp = a.post(base + "/checkpoints", null);
        assertThat(cp.status()).as(cp.body()).isEqualTo(201);
        b.get("/v1/checkpoints/" + cp.json().path("id").asString() + "/archive").error(404, "not_found_error", "not_found");
        b.delete(base + "/checkpoints/" + cp.json().path("id").asString()).error(404, "not_found_error", "not_found");
        // b's own sandbox does not make a's checkpoint its own either
        String bs = b.post("/v1/sandboxes", "{}").json().path("id").asString();
        b.delete("/v1/sandboxes/" + bs + "/checkpoints/" + cp.json().path("id").asString()).error(404, "not_found_error", "not_found");
        b.delete("/v1/sandboxes/" + bs + "/checkpoints/not-an-id").error(400, "invalid_request_error", "invalid_id");
        assertThat(a.get(base + "/checkpoints").json().path("data").size()).as("a's checkpoint is still there").isEqualTo(1);

        assertThat(a.get(base).json().path("state").asString()).as("untouched by b").isEqualTo("running");
        assertThat(a.get(base + "/files/content?path=secret.txt").body()).isEqualTo("a's");
    }

    @Test
    void onlyAdminsManageKeys() {
        Api user = t.newTenant("user");
        user.post("/v1/api_keys", "{\"name\": \"mine\"}").error(403, "permission_error", "admin_required");
        user.get("/v1/api_keys").error(403, "permission_error", "admin_required");
        user.delete("/v1/api_keys/key_0123456789abcdefghjkmnpqrs").error(403, "permission_error", "admin_required");
    }

    @Test
    void adminCreatesListsAndRevokesKeys() {
        var created = t.admin.post("/v1/api_keys", "{\"name\": \"ci\", \"tenant_id\": \"default\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String secret = created.json().path("key").asString();
        String keyId = created.json().path("id").asString();
        assertThat(secret).startsWith("pdk_");
        assertThat(keyId).startsWith("key_");
        assertThat(created.json().path("tenant_id").asString()).isEqualTo("default");
        assertThat(created.json().path("admin").asBoolean(true)).isFalse();

        Api ci = t.as(secret);
        assertThat(ci.get("/v1/sandboxes").status()).isEqualTo(200);

        var list = t.admin.get("/v1/api_keys");
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.body()).doesNotContain(secret).doesNotContain("secret_hash");
        assertThat(list.json().path("data").findValuesAsString("id")).contains(keyId);
        list.json().path("data").forEach(k -> assertThat(k.has("prefix") && k.has("created_at")).isTrue());

        assertThat(t.admin.delete("/v1/api_keys/" + keyId).status()).isEqualTo(204);
        ci.get("/v1/sandboxes").error(401, "authentication_error", "invalid_api_key");
        assertThat(t.admin.get("/v1/api_keys").json().path("data").findValuesAsString("id")).doesNotContain(keyId);
    }

    @Test
    void aKeyWithoutTenantStartsANewTenant() {
        var created = t.admin.post("/v1/api_keys", "{\"name\": \"fresh\"}");
        assertThat(created.status()).isEqualTo(201);
        String tenant = created.json().path("tenant_id").asString();
        assertThat(tenant).isNotEqualTo("default").isNotBlank();
        Api fresh = t.as(created.json().path("key").asString());
        assertThat(fresh.get("/v1/sandboxes?include_terminated=true").json().path("data").size()).isZero();
    }

    @Test
    void aTenantAdminManagesOnlyItsOwnTenantsKeys() {
        String tenant = "tenant-admin-" + System.nanoTime();
        Api tenantAdmin = t.as(t.keys.create(tenant, "tenant admin", true).secret());

        tenantAdmin.post("/v1/api_keys", "{\"name\": \"up\", \"tenant_id\": \"default\", \"admin\": true}")
                .error(403, "permission_error", "tenant_forbidden");
        tenantAdmin.post("/v1/api_keys", "{\"name\": \"other\", \"tenant_id\": \"someone-else\"}")
                .error(403, "permission_error", "tenant_forbidden");
        tenantAdmin.get("/v1/api_keys?tenant_id=default").error(403, "permission_error", "tenant_forbidden");

        var own = tenantAdmin.post("/v1/api_keys", "{\"name\": \"ci\", \"admin\": true}");
        assertThat(own.status()).as(own.body()).isEqualTo(201);
        assertThat(own.json().path("tenant_id").asString()).as("no tenant_id: the caller's own tenant").isEqualTo(tenant);

        var listed = tenantAdmin.get("/v1/api_keys").json().path("data");
        assertThat(listed.findValuesAsString("tenant_id")).containsOnly(tenant);
        String operatorKeyId = t.admin.get("/v1/api_keys?tenant_id=default").json().path("data").get(0).path("id").asString();
        tenantAdmin.delete("/v1/api_keys/" + operatorKeyId).error(404, "not_found_error", "not_found");
        assertThat(t.admin.get("/v1/sandboxes").status()).as("the operator's key still works").isEqualTo(200);

        assertThat(tenantAdmin.delete("/v1/api_keys/" + own.json().path("id").asString()).status()).isEqualTo(204);
    }

    @Test
    void theOperatorListsAndRevokesEveryTenantsKeys() {
        String tenant = "tenant-op-" + System.nanoTime();
        var created = t.keys.create(tenant, "theirs", false);
        var all = t.admin.get("/v1/api_keys").json().path("data");
        assertThat(all.findValuesAsString("id")).contains(created.key().id());
        var filtered = t.admin.get("/v1/api_keys?tenant_id=" + tenant).json().path("data");
        assertThat(filtered.findValuesAsString("id")).containsExactly(created.key().id());

        var made = t.admin.post("/v1/api_keys", "{\"name\": \"theirs-admin\", \"tenant_id\": \"" + tenant + "\", \"admin\": true}");
        assertThat(made.status()).isEqualTo(201);
        assertThat(made.json().path("tenant_id").asString()).isEqualTo(tenant);

        assertThat(t.admin.delete("/v1/api_keys/" + created.key().id()).status()).isEqualTo(204);
        t.as(created.secret()).get("/v1/sandboxes").error(401, "authentication_error", "invalid_api_key");
    }

    @Test
    void anyKeyMayRevokeItself() {
        var plain = t.keys.create("tenant-self-" + System.nanoTime(), "self", false);
        Api self = t.as(plain.secret());
        assertThat(self.delete("/v1/api_keys/" + plain.key().id()).status()).isEqualTo(204);
        self.get("/v1/sandboxes").error(401, "authentication_error", "invalid_api_key");
    }
}
