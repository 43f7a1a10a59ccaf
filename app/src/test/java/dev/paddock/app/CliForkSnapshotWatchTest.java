package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code paddock sandbox fork|watch|network} and {@code paddock snapshot …} against a real server (subprocess driver). */
class CliForkSnapshotWatchTest extends CliAgainstTestServer {
    private static Cli.Result ok(String... args) {
        Cli.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        return r;
    }

    @Test
    void forkAndSnapshotsCarryTheWorkspace() {
        String id = ok("sandbox", "create").out().trim();
        ok("sandbox", "exec", id, "--", "sh", "-c", "echo one > state.txt");

        String fork = ok("sandbox", "fork", id).out().trim();
        assertThat(fork).startsWith("sbx_").isNotEqualTo(id);
        assertThat(ok("sandbox", "exec", fork, "--", "cat", "state.txt").out()).isEqualTo("one\n");

        assertThat(ok("snapshot", "create", id, "cli-base").out()).isEqualTo("cli-base\n");
        assertThat(ok("snapshot", "ls").out()).contains("NAME", "cli-base", id);
        String started = ok("snapshot", "start", "cli-base").out().trim();
        assertThat(ok("sandbox", "exec", started, "--", "cat", "state.txt").out()).isEqualTo("one\n");
        assertThat(ok("snapshot", "rm", "cli-base").out()).isEqualTo("deleted cli-base\n");
        Cli.Result gone = cli.run("snapshot", "rm", "cli-base");
        assertThat(gone.code()).isEqualTo(1);
        assertThat(gone.err()).contains("(not_found)");
    }

    @Test
    void networkChangesAreRefusedWhereTheDriverHasNoNetwork() {
        String id = ok("sandbox", "create").out().trim();
        Cli.Result r = cli.run("sandbox", "network", id, "--allow-host", "example.com");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("(unsupported_capability)");
        Cli.Result usage = cli.run("sandbox", "network", id, "--network", "none", "--allow-host", "example.com");
        assertThat(usage.code()).isEqualTo(2);
    }

    @Test
    void watchPrintsChangesUntilTheSandboxEnds() throws Exception {
        String id = ok("sandbox", "create").out().trim();
        CompletableFuture<Cli.Result> watch = CompletableFuture.supplyAsync(() -> cli.run("sandbox", "watch", id, "/workspace"));
        // the watch opens meanwhile: keep changing files for a while, then end the sandbox, which ends the watch
        for (int i = 0; i < 30; i++) {
            ok("sandbox", "exec", id, "--", "sh", "-c", "echo x > w-" + i + ".txt");
            Thread.sleep(100);
        }
        ok("sandbox", "rm", id);
        Cli.Result r = watch.get(30, TimeUnit.SECONDS);
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).containsPattern("(?m)^created /workspace/w-\\d+\\.txt$").endsWith("end sandbox_ended\n");
    }
}
