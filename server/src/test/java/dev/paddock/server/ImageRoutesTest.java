package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * /v1/images over real HTTP with a real image store: any key lists and reads, only an admin deletes, an image a
 * live sandbox uses cannot be deleted, and a create naming an unknown image is refused before any record exists.
 * (Running a sandbox on an image needs the bwrap driver: see the app's ImageEndToEndTest.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ImageRoutesTest {
    private final TestServer t = new TestServer(ServerConfig.defaults().withPort(0).withConsoleResource("/test-console"), true);
    private final Api admin = t.admin;

    @AfterAll
    void close() {
        t.close();
    }

    /** An image placed by hand: a rootfs directory without image.json is a valid "local" image. */
    private void placeImage(String name) throws Exception {
        Path rootfs = t.dataDir.resolve("images").resolve(name).resolve("rootfs");
        Files.createDirectories(rootfs.resolve("etc"));
        Files.writeString(rootfs.resolve("etc/marker"), "hi");
    }

    @Test
    void anyKeyListsAndReadsImages() throws Exception {
        placeImage("listed");
        Api tenant = t.newTenant("reader");
        JsonNode list = tenant.get("/v1/images").json();
        assertThat(list.path("data")).anySatisfy(i -> {
            assertThat(i.path("type").asString()).isEqualTo("image");
            assertThat(i.path("name").asString()).isEqualTo("listed");
            assertThat(i.path("source").asString()).isEqualTo("local");
        });
        var one = tenant.get("/v1/images/listed");
        assertThat(one.status()).as(one.body()).isEqualTo(200);
        assertThat(one.json().path("name").asString()).isEqualTo("listed");
        assertThat(one.body()).as("no host paths").doesNotContain(t.dataDir.toString());
    }

    @Test
    void unknownAndMalformedNamesAreClearErrors() {
        admin.get("/v1/images/nope").error(404, "not_found_error", "image_not_found");
        admin.get("/v1/images/Bad%20Name").error(400, "invalid_request_error", "invalid_image_name");
        admin.delete("/v1/images/nope").error(404, "not_found_error", "image_not_found");
        admin.get("/v1/images").assertNoInternals();
        t.as(null).get("/v1/images").error(401, "authentication_error", "missing_api_key");
    }

    @Test
    void onlyAnAdminDeletes() throws Exception {
        placeImage("guarded");
        var refused = t.newTenant("plain").delete("/v1/images/guarded").error(403, "permission_error", "operator_required");
        assertThat(refused.message()).contains("delete images");
        assertThat(admin.get("/v1/images/guarded").status()).isEqualTo(200);

        assertThat(admin.delete("/v1/images/guarded").status()).isEqualTo(204);
        admin.get("/v1/images/guarded").error(404, "not_found_error", "image_not_found");
        assertThat(t.dataDir.resolve("images/guarded")).doesNotExist();
    }

    @Test
    void anImageALiveSandboxUsesCannotBeDeleted() throws Exception {
        placeImage("busy");
        // The subprocess driver ignores the image, but the record names it, which is what the check reads.
        Api other = t.newTenant("user");
        var created = other.post("/v1/sandboxes", "{\"image\": \"busy\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().path("id").asString();

        var conflict = admin.delete("/v1/images/busy").error(409, "conflict_error", "image_in_use");
        assertThat(conflict.message()).contains("1 sandbox").doesNotContain(id);
        assertThat(admin.get("/v1/images/busy").status()).isEqualTo(200);

        other.delete("/v1/sandboxes/" + id);
        assertThat(admin.delete("/v1/images/busy").status()).isEqualTo(204);
    }

    @Test
    void createWithAnUnknownImageIsA404AndLeavesNoSandbox() {
        Api tenant = t.newTenant("typo");
        var r = tenant.post("/v1/sandboxes", "{\"image\": \"no-such-image\"}").error(404, "not_found_error", "image_not_found");
        assertThat(r.message()).contains("no-such-image");
        assertThat(tenant.get("/v1/sandboxes?include_terminated=true").json().path("data")).isEmpty();
        tenant.post("/v1/sandboxes", "{\"image\": \"../etc\"}").error(400, "invalid_request_error", "invalid_image_name");
    }
}
