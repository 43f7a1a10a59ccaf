package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Images end to end on the real bubblewrap driver: an archive is imported with the CLI while the server runs, a
 * sandbox created through the REST API runs on that image's root (not the host's), the root is read-only and
 * shared, and an image a live sandbox uses cannot be removed. Needs Debian's busybox-static for the image.
 */
@Tag("bwrap")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ImageEndToEndTest {
    static final String IMAGE = "bbox";

    Path work;
    BwrapServer server;
    PaddockClient api;
    Cli cli;

    @BeforeAll
    void start() throws Exception {
        server = new BwrapServer("pdi");
        api = server.api;
        cli = server.cli();
        work = server.dataDir; // archives are plain files next to the images; removed with the data dir
        Path archive = BusyboxImageArchive.write(work.resolve("busybox.tar"));
        Cli.Result imported = cli.run("image", "import", IMAGE, archive.toString());
        assertThat(imported.code()).as(imported.toString()).isZero();
        assertThat(imported.out()).contains("image " + IMAGE + " ready (oci");
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
    }

    private String create(String body) {
        JsonNode s = api.json("POST", "/v1/sandboxes", Map.of(), Json.read(body));
        assertThat(s.path("state").asString()).isEqualTo("running");
        return s.path("id").asString();
    }

    private JsonNode exec(String id, String command) {
        ObjectNode body = Json.object().put("command", command);
        return api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), body);
    }

    @Test
    void theImageIsListedByTheApiAndTheCli() {
        JsonNode one = api.get("/v1/images/" + IMAGE);
        assertThat(one.path("source").asString()).isEqualTo("oci");
        assertThat(one.path("ref").asString()).isEqualTo("busybox:paddock-test");
        assertThat(one.path("size_bytes").asLong()).isGreaterThan(BusyboxImageArchive.BUSYBOX.toFile().length() - 1);

        Cli.Result list = cli.run("image", "list");
        assertThat(list.code()).as(list.toString()).isZero();
        assertThat(list.out()).contains("NAME", IMAGE, "oci", "busybox:paddock-test");
        Cli.Result json = cli.run("image", "list", "--json");
        assertThat(PaddockClient.parse(json.rawOut()).path("data")).anySatisfy(i -> assertThat(i.path("name").asString()).isEqualTo(IMAGE));
    }

    @Test
    void aSandboxRunsOnTheImageRootWhichIsReadOnly() {
        String id = create("{\"image\": \"" + IMAGE + "\"}");
        assertThat(api.get("/v1/sandboxes/" + id).path("image").asString()).isEqualTo(IMAGE);

        JsonNode release = exec(id, "cat /etc/os-release");
        assertThat(release.path("exit_code").asInt()).as(release.toString()).isZero();
        assertThat(release.path("stdout").asString()).contains("ID=" + BusyboxImageArchive.OS_ID);

        // the host's system is not there: the image has no /usr at all
        assertThat(exec(id, "ls /usr").path("exit_code").asInt()).isNotZero();

        JsonNode write = exec(id, "echo x > /etc/planted");
        assertThat(write.path("exit_code").asInt()).isNotZero();
        assertThat(write.path("stderr").asString()).containsIgnoringCase("read-only");
        assertThat(exec(id, "touch /bin/planted").path("exit_code").asInt()).isNotZero();

        // /workspace stays writable and durable
        assertThat(exec(id, "echo kept > /workspace/note && cat /workspace/note").path("stdout").asString()).isEqualTo("kept\n");
    }

    @Test
    void anImageInUseCannotBeRemovedUntilItsSandboxesEnd() throws IOException {
        Path archive = BusyboxImageArchive.write(work.resolve("second.tar"));
        assertThat(cli.run("image", "import", "doomed", archive.toString()).code()).isZero();
        String id = create("{\"image\": \"doomed\"}");

        assertThatThrownBy(() -> api.call("DELETE", "/v1/images/doomed", Map.of(), null))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.code()).isEqualTo("image_in_use");
                });
        Cli.Result refused = cli.run("image", "rm", "doomed");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err()).contains("is used by 1 sandbox", "(image_in_use)");
        assertThat(exec(id, "cat /etc/os-release").path("exit_code").asInt()).as("still runs").isZero();

        api.call("DELETE", "/v1/sandboxes/" + id, Map.of(), null);
        Cli.Result removed = cli.run("image", "rm", "doomed");
        assertThat(removed.code()).as(removed.toString()).isZero();
        assertThat(server.dataDir.resolve("images/doomed")).doesNotExist();
    }

    @Test
    void anImageWithoutMountPointsGetsThemAtImport() {
        Path archive;
        try {
            archive = BusyboxImageArchive.write(work.resolve("bare.tar"), false);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Cli.Result imported = cli.run("image", "import", "bare", archive.toString());
        assertThat(imported.code()).as(imported.toString()).isZero();
        for (String dir : new String[] {"workspace", "proc", "dev", "tmp"}) {
            assertThat(server.dataDir.resolve("images/bare/rootfs").resolve(dir)).isDirectory();
        }
        String id = create("{\"image\": \"bare\"}");
        JsonNode release = exec(id, "cat /etc/os-release && echo ok > /workspace/w && cat /workspace/w");
        assertThat(release.path("exit_code").asInt()).as(release.toString()).isZero();
        assertThat(release.path("stdout").asString()).contains("ID=" + BusyboxImageArchive.OS_ID).endsWith("ok\n");
    }

    @Test
    void anUnknownImageIsANotFoundAtCreate() {
        assertThatThrownBy(() -> create("{\"image\": \"missing\"}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.code()).isEqualTo("image_not_found");
                    assertThat(e.getMessage()).contains("'missing' does not exist");
                });
    }

    @Test
    void writableRootfsGivesEachSandboxItsOwnOverlay() {
        assumeTrue(bwrapHasOverlays(), "this bubblewrap has no --tmp-overlay (needs 0.9+)");
        String a = create("{\"image\": \"" + IMAGE + "\", \"writable_rootfs\": true}");
        String b = create("{\"image\": \"" + IMAGE + "\", \"writable_rootfs\": true}");
        assertThat(exec(a, "echo mine > /etc/only-in-a && cat /etc/only-in-a").path("stdout").asString()).isEqualTo("mine\n");
        assertThat(exec(b, "test -e /etc/only-in-a").path("exit_code").asInt()).as("b does not see a's change").isNotZero();
        assertThat(server.dataDir.resolve("images/" + IMAGE + "/rootfs/etc/only-in-a")).as("the image is untouched").doesNotExist();
    }

    @Test
    void writableRootfsIsAClearNotImplementedWithoutOverlaySupport() {
        assumeFalse(bwrapHasOverlays(), "this bubblewrap supports overlays");
        assertThatThrownBy(() -> create("{\"image\": \"" + IMAGE + "\", \"writable_rootfs\": true}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(501);
                    assertThat(e.code()).isEqualTo("unsupported_capability");
                    assertThat(e.getMessage()).contains("bubblewrap");
                });
    }

    static boolean bwrapHasOverlays() {
        try {
            Process p = new ProcessBuilder("bwrap", "--help").redirectErrorStream(true).start();
            String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return help.contains("--tmp-overlay");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
