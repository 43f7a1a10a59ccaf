package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.StartupException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The composition root: a real server comes up on port 0, owns its data dir, and keeps a second one out. */
class ServeWiringTest {
    @TempDir Path dataDir;

    @Test
    void startsAnswersHealthAndWritesTheAdminKeyPrivately() throws Exception {
        try (PaddockApp app = TestServer.start(dataDir)) {
            HttpResponse<String> health = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(app.url() + "/v1/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"ok\"", "subprocess");

            Path key = dataDir.resolve("admin.key");
            assertThat(Files.readString(key).trim()).startsWith("pdk_").isEqualTo(app.createdAdminKey().orElseThrow());
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
            assertThat(Files.readString(dataDir.resolve("paddock.url")).trim()).isEqualTo(app.url());
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir.resolve("paddock.db")))).isEqualTo("rw-------");

            java.io.StringWriter banner = new java.io.StringWriter();
            app.printBanner(new java.io.PrintWriter(banner));
            assertThat(banner.toString()).contains(app.createdAdminKey().get())
                    .contains("Paddock listening on " + app.url() + " (console: " + app.url() + "/)");
        }
        // a restart keeps the key and does not print a new one
        try (PaddockApp again = TestServer.start(dataDir)) {
            assertThat(again.createdAdminKey()).isEmpty();
        }
    }

    @Test
    void aWildcardBindIsPrintedAsItIsWithAWarning() throws Exception {
        var settings = dev.paddock.app.serve.ServeSettings.resolve(
                Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "subprocess", "bind", "0.0.0.0"), Map.of(), null, dataDir);
        try (PaddockApp app = PaddockApp.start(settings)) {
            java.io.StringWriter banner = new java.io.StringWriter();
            app.printBanner(new java.io.PrintWriter(banner));
            assertThat(banner.toString())
                    .contains("Paddock listening on http://0.0.0.0:" + app.port() + " (console: http://0.0.0.0:" + app.port() + "/)")
                    .contains("WARNING: Paddock is bound to 0.0.0.0", "reachable from the network", "--bind 127.0.0.1");
            // local clients still get an address they can connect to
            assertThat(app.url()).isEqualTo("http://127.0.0.1:" + app.port());
            assertThat(Files.readString(dataDir.resolve("paddock.url")).trim()).isEqualTo(app.url());
        }
    }

    @Test
    void aLoopbackBindHasNoWarning() {
        try (PaddockApp app = TestServer.start(dataDir)) {
            java.io.StringWriter banner = new java.io.StringWriter();
            app.printBanner(new java.io.PrintWriter(banner));
            assertThat(banner.toString()).contains("Paddock listening on http://127.0.0.1:").doesNotContain("WARNING");
        }
        assertThat(new dev.paddock.app.serve.BindAddress("localhost", 1).loopback()).isTrue();
        assertThat(new dev.paddock.app.serve.BindAddress("::1", 1).loopback()).isTrue();
        assertThat(new dev.paddock.app.serve.BindAddress("::", 1).loopback()).isFalse();
        assertThat(new dev.paddock.app.serve.BindAddress("::", 7070).url()).isEqualTo("http://[::]:7070");
    }

    @Test
    void refusesASecondServerOnTheSameDataDir() {
        try (PaddockApp first = TestServer.start(dataDir)) {
            assertThatThrownBy(() -> TestServer.start(dataDir))
                    .isInstanceOf(StartupException.class)
                    .hasMessageContaining("another Paddock server is already using the data directory");

            Cli.Result viaCli = new Cli(Map.of(), dataDir).run("serve", "--data-dir", dataDir.toString(), "--port", "0", "--driver", "subprocess");
            assertThat(viaCli.code()).isEqualTo(1);
            assertThat(viaCli.err()).startsWith("error: another Paddock server is already using the data directory");
            // the first server is untouched
            assertThat(Files.exists(dataDir.resolve("paddock.url"))).isTrue();
        }
    }

    @Test
    void registersTheConfiguredApiKeyInsteadOfCreatingOne() throws Exception {
        String secret = "pdk_operator_chosen_secret_0123456789";
        var settings = dev.paddock.app.serve.ServeSettings.resolve(
                Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "subprocess"), Map.of("PADDOCK_API_KEY", secret), null, dataDir);
        try (PaddockApp app = PaddockApp.start(settings)) {
            assertThat(app.createdAdminKey()).isEmpty();
            assertThat(dataDir.resolve("admin.key")).doesNotExist();
            Cli.Result r = new Cli(Map.of("PADDOCK_URL", app.url(), "PADDOCK_API_KEY", secret), dataDir).run("keys", "list");
            assertThat(r.code()).as(r.toString()).isZero();
            assertThat(r.out()).contains("PADDOCK_API_KEY");
        }
    }

    @Test
    void subprocessDriverNeedsTestMode() {
        String before = System.getProperty("paddock.test-mode");
        System.clearProperty("paddock.test-mode");
        try {
            Cli.Result r = new Cli(Map.of(), dataDir).run("serve", "--data-dir", dataDir.toString(), "--port", "0", "--driver", "subprocess");
            assertThat(r.code()).isEqualTo(1);
            assertThat(r.err()).contains("subprocess driver runs commands without any isolation", "PADDOCK_TEST_MODE=1");
        } finally {
            if (before != null) System.setProperty("paddock.test-mode", before);
        }
    }

    @Test
    void bwrapProblemsAreListedOneByOne() {
        Cli.Result r = new Cli(Map.of("PADDOCK_BWRAP_PATH", "/nonexistent/bwrap"), dataDir)
                .run("serve", "--data-dir", dataDir.toString(), "--port", "0");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: the bwrap driver cannot run on this machine:\n")
                .contains("  - /nonexistent/bwrap is missing: install bubblewrap");
    }
}
