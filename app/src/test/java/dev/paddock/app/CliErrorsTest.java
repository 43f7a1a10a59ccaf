package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input and failures give one clear line on stderr and the documented exit code, never a stack trace. */
class CliErrorsTest extends CliAgainstTestServer {
    @TempDir Path elsewhere;

    @Test
    void badDurationIsAUsageError() {
        Cli.Result r = cli.run("sandbox", "create", "--timeout", "10 parsecs");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("'10 parsecs' is not a duration", "30s, 10m, 1h, 2d");
        noStackTrace(r);
    }

    @Test
    void badSizeIsAUsageError() {
        Cli.Result r = cli.run("sandbox", "create", "--memory", "lots");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("'lots' is not a size", "512m");
        noStackTrace(r);
    }

    @Test
    void malformedIdIsAUsageErrorBeforeAnyRequest() {
        Cli.Result r = cli.run("sandbox", "get", "box-1");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("error: 'box-1' is not a sandbox id; ids look like sbx_0123456789abcdefghjkmnpqrs (see `paddock sandbox list`)\n");

        Cli.Result cp = cli.run("sandbox", "cp", "sbx_nope:/workspace/a", elsewhere.toString());
        assertThat(cp.code()).isEqualTo(2);
        assertThat(cp.err()).contains("'sbx_nope' is not a sandbox id");
    }

    @Test
    void unknownSandboxIsAnApiErrorWithItsCode() {
        Cli.Result r = cli.run("sandbox", "get", "sbx_0000000000aaaaaaaaaaaaaaaa");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: ").contains("sbx_0000000000aaaaaaaaaaaaaaaa").endsWith("(not_found)\n");
        noStackTrace(r);
    }

    @Test
    void serverSideValidationErrorsAreShownAsSent() {
        Cli.Result r = cli.run("sandbox", "create", "--memory", "1k");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: ").contains("memory");
        noStackTrace(r);
    }

    @Test
    void missingServerSaysHowToStartIt() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Cli.Result r = new Cli(Map.of("PADDOCK_DATA_DIR", elsewhere.toString()), elsewhere)
                .run("sandbox", "list", "--url", "http://127.0.0.1:" + port);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("error: cannot reach Paddock at http://127.0.0.1:" + port + ": is `paddock serve` running?\n");
    }

    @Test
    void missingKeySaysWhereKeysComeFrom() {
        // a data dir without admin.key, but the running server's URL
        Cli.Result r = new Cli(Map.of("PADDOCK_DATA_DIR", elsewhere.toString()), elsewhere)
                .run("sandbox", "list", "--url", app.url());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: no API key found: pass --api-key, set PADDOCK_API_KEY, or run where "
                + elsewhere.resolve("admin.key") + " is readable (");
    }

    @Test
    void keyDiscoveryOrderIsFlagThenEnvironmentThenDataDir() throws Exception {
        String fileKey = Files.readString(dataDir.resolve("admin.key")).trim();
        // the data dir's key works on its own
        assertThat(cli.run("sandbox", "list").code()).isZero();
        // a wrong key in the environment wins over the file, and is named in the message
        Cli.Result env = new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString(), "PADDOCK_API_KEY", "pdk_wrongwrongwrongwrong"), dataDir)
                .run("sandbox", "list");
        assertThat(env.code()).isEqualTo(1);
        assertThat(env.err()).contains("PADDOCK_API_KEY was refused");
        // a right key on the flag wins over the wrong one in the environment
        Cli.Result flag = new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString(), "PADDOCK_API_KEY", "pdk_wrongwrongwrongwrong"), dataDir)
                .run("sandbox", "list", "--api-key", fileKey);
        assertThat(flag.code()).as(flag.toString()).isZero();
        // PADDOCK_URL wins over the data dir's URL file
        Cli.Result url = new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString(), "PADDOCK_URL", "http://127.0.0.1:1"), dataDir)
                .run("sandbox", "list");
        assertThat(url.err()).contains("cannot reach Paddock at http://127.0.0.1:1");
    }

    @Test
    void badUrlAndBadUsage() {
        Cli.Result url = cli.run("sandbox", "list", "--url", "localhost:7070");
        assertThat(url.code()).isEqualTo(2);
        assertThat(url.err()).contains("must start with http:// or https://");

        Cli.Result noCommand = cli.run("sandbox", "exec", "sbx_0000000000aaaaaaaaaaaaaaaa");
        assertThat(noCommand.code()).isEqualTo(2);
        assertThat(noCommand.err()).contains("give the command after --");

        Cli.Result bothLocal = cli.run("sandbox", "cp", "a", "b");
        assertThat(bothLocal.code()).isEqualTo(2);
        assertThat(bothLocal.err()).contains("exactly one side must be in a sandbox");

        Cli.Result unknown = cli.run("sandbox", "explode");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("Unmatched argument", "'explode'");
    }

    private static void noStackTrace(Cli.Result r) {
        assertThat(r.err()).doesNotContain("Exception", "\tat ");
    }
}
