package dev.paddock.app;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code paddock runtime code} and {@code paddock runtime pair} as a user runs them, against a real server. */
class RuntimeCommandTest extends CliAgainstTestServer {
    @TempDir Path daemonDir;

    @Test
    void codeMintsADaemonCodeAndSaysWhatToRun() {
        Cli.Result r = cli.run("runtime", "code");
        assertThat(r.code()).as(r.toString()).isZero();
        String code = r.out().lines().findFirst().orElseThrow();
        assertThat(code).startsWith("ppc_");
        assertThat(r.out()).contains("paddock runtime pair " + code + " --server " + app.url());
    }

    @Test
    void aRefusedCodeEndsThePairWithTheServersReason() {
        Cli.Result forged = new Cli(Map.of(), daemonDir).run("runtime", "pair", "ppc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "--server", app.url(),
                "--driver", "subprocess", "--data-dir", daemonDir.toString());
        assertThat(forged.code()).as(forged.toString()).isEqualTo(1);
        assertThat(forged.err()).contains("pairing refused").contains("pairing_code_invalid");
    }

    @Test
    void aServerThatIsNotAUrlIsAUsageError() {
        Cli.Result r = new Cli(Map.of(), daemonDir).run("runtime", "pair", "ppc_x", "--server", "ftp://example.com");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--server must be an http or https URL");
    }
}
