package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code paddock image …} without a bwrap server: bad input is refused before anything runs, and with no server
 * answering, list and rm work on the data directory, rm still refusing an image a live sandbox record names.
 * (Import, list and rm against a running server, and sandboxes on an image: ImageEndToEndTest.)
 */
class CliImageTest {
    @TempDir Path dataDir;

    /** A CLI whose server URL answers nothing, so the local fallbacks are taken. */
    private Cli offline() {
        return new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString(), "PADDOCK_URL", "http://127.0.0.1:1"), dataDir);
    }

    private void placeImage(String name) throws Exception {
        Files.createDirectories(dataDir.resolve("images").resolve(name).resolve("rootfs/etc"));
    }

    @Test
    void badBuildInputIsAClearErrorBeforeDebootstrapRuns() {
        Cli cli = offline();
        Cli.Result badName = cli.run("image", "build", "Not/Valid");
        assertThat(badName.code()).isEqualTo(1);
        assertThat(badName.err()).contains("image name 'Not/Valid' is invalid", "(invalid_image_name)");

        Cli.Result badPackage = cli.run("image", "build", "py", "--packages", "python3,rm -rf");
        assertThat(badPackage.code()).isEqualTo(1);
        assertThat(badPackage.err()).contains("'rm -rf' is not a valid Debian package name");

        Cli.Result badMirror = cli.run("image", "build", "py", "--mirror", "ftp://example.org/debian");
        assertThat(badMirror.code()).isEqualTo(1);
        assertThat(badMirror.err()).contains("(invalid_mirror)");
        assertThat(dataDir.resolve("images/py")).doesNotExist();

        Cli.Result noArchive = cli.run("image", "import", "x", dataDir.resolve("missing.tar").toString());
        assertThat(noArchive.code()).isEqualTo(2);
        assertThat(noArchive.err()).contains("is not a file");
    }

    @Test
    void withoutAServerListAndRmUseTheDataDirectory() throws Exception {
        Cli cli = offline();
        Cli.Result empty = cli.run("image", "list");
        assertThat(empty.code()).as(empty.toString()).isZero();
        assertThat(empty.err()).contains("no server answers at http://127.0.0.1:1");
        assertThat(empty.out()).contains("no images");

        placeImage("local-one");
        Cli.Result json = cli.run("image", "list", "--json");
        assertThat(PaddockClient.parse(json.rawOut()).path("data").get(0).path("name").asString()).isEqualTo("local-one");

        Cli.Result missing = cli.run("image", "rm", "nope");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("(image_not_found)");

        Cli.Result removed = cli.run("image", "rm", "local-one");
        assertThat(removed.code()).as(removed.toString()).isZero();
        assertThat(dataDir.resolve("images/local-one")).doesNotExist();
    }

    @Test
    void withoutAServerRmStillRefusesAnImageALiveSandboxRecordNames() throws Exception {
        placeImage("kept");
        String id;
        try (PaddockApp app = TestServer.start(dataDir)) {
            PaddockClient api = new PaddockClient(app.url(), app.createdAdminKey().orElseThrow());
            id = api.json("POST", "/v1/sandboxes", Map.of(), Json.read("{\"image\": \"kept\"}")).path("id").asString();
        }
        // the server is gone; its sandbox record is still running and would be re-attached by the next server
        Cli.Result refused = offline().run("image", "rm", "kept");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err()).contains("is used by 1 sandbox", "(image_in_use)").doesNotContain(id);
        assertThat(dataDir.resolve("images/kept")).exists();
    }

    @Test
    void rmWithoutAServerIsRefusedWhileAnotherServerHoldsTheDataDirectory() throws Exception {
        placeImage("held");
        try (PaddockApp app = TestServer.start(dataDir)) {
            // the CLI is pointed at a wrong URL, but the data directory's lock tells it a server is there
            Cli.Result r = offline().run("image", "rm", "held");
            assertThat(r.code()).isEqualTo(1);
            assertThat(r.err()).contains("another Paddock server is already using the data directory");
            assertThat(dataDir.resolve("images/held")).exists();
        }
    }
}
