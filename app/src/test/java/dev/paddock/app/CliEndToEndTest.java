package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The CLI against a real server (subprocess driver). The CLI finds both the server URL and the admin key through
 * the data directory only, so every test here also proves the local discovery.
 */
class CliEndToEndTest extends CliAgainstTestServer {
    @TempDir Path local;

    static String create(String... extra) {
        String[] args = new String[2 + extra.length];
        args[0] = "sandbox";
        args[1] = "create";
        System.arraycopy(extra, 0, args, 2, extra.length);
        Cli.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        String id = r.out().trim();
        assertThat(id).matches("sbx_[0-9a-z]{26}");
        return id;
    }

    @Test
    void createExecAndRemove() {
        String id = create("--memory", "256m", "--pids", "64", "--cpus", "0.5", "--timeout", "30m", "--env", "GREETING=hi");

        Cli.Result list = cli.run("sandbox", "list");
        assertThat(list.code()).isZero();
        assertThat(list.out()).contains("ID", "STATE", id, "running", "subprocess", "256m");

        Cli.Result exec = cli.run("sandbox", "exec", id, "--", "sh", "-c", "echo \"$GREETING out\"; echo problem >&2; exit 3");
        assertThat(exec.code()).as(exec.toString()).isEqualTo(3);
        assertThat(exec.out()).isEqualTo("hi out\n");
        assertThat(exec.err()).isEqualTo("problem\n");

        Cli.Result shell = cli.run("sandbox", "exec", id, "--shell", "echo one; echo two | tr a-z A-Z");
        assertThat(shell.code()).isZero();
        assertThat(shell.out()).isEqualTo("one\nTWO\n");

        Cli.Result stdin = cli.runWithStdin("piped text".getBytes(), "sandbox", "exec", id, "--stdin", "--", "cat");
        assertThat(stdin.out()).isEqualTo("piped text");

        Cli.Result rm = cli.run("sandbox", "rm", id);
        assertThat(rm.code()).as(rm.toString()).isZero();
        assertThat(rm.out()).isEqualTo(id + " terminated\n");
        assertThat(cli.run("sandbox", "list").out()).doesNotContain(id);
        assertThat(cli.run("sandbox", "list", "--all").out()).contains(id, "terminated");
        assertThat(cli.run("sandbox", "ls", id + ":/workspace").code()).as("the workspace stays readable").isZero();
    }

    @Test
    void removeWithPurgeLeavesNoFilesOnTheHost() throws Exception {
        String id = create();
        cli.run("sandbox", "exec", id, "--shell", "echo secret > data.txt");
        Path file = dataDir.resolve("subprocess").resolve("sandboxes").resolve(id).resolve("workspace").resolve("data.txt");
        assertThat(file).exists();
        Cli.Result rm = cli.run("sandbox", "rm", "--purge", id);
        assertThat(rm.code()).as(rm.toString()).isZero();
        assertThat(file).doesNotExist();
        assertThat(cli.run("sandbox", "rm", "--purge=maybe", id).err()).contains("--purge");
    }

    @Test
    void execStreamsOutputAsItArrives() throws Exception {
        String id = create();
        PaddockClient api = new PaddockClient(app.url(), Files.readString(dataDir.resolve("admin.key")).trim());
        // The command prints "first" and then waits until the file "go" exists. The test creates that file only
        // once "first" has reached the CLI's stdout, so a client that buffered output until the end would never
        // see it in time and the command would time out (exit 124).
        java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
        java.io.OutputStream stdout = new java.io.OutputStream() {
            @Override public void write(int b) { write(new byte[] {(byte) b}, 0, 1); }
            @Override public void write(byte[] b, int off, int len) {
                seen.write(b, off, len);
                if (seen.toString().startsWith("first\n") && !seen.toString().contains("second")) {
                    api.upload("PUT", "/v1/sandboxes/" + id + "/files/content", Map.of("path", "go"),
                            () -> new java.io.ByteArrayInputStream(new byte[0]));
                }
            }
        };
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        var ctx = new dev.paddock.app.cli.CliContext(java.io.InputStream.nullInputStream(), stdout, err,
                Map.of("PADDOCK_DATA_DIR", dataDir.toString()), dataDir);
        int code = Main.run(ctx, "sandbox", "exec", id, "--timeout", "30s", "--shell",
                "echo first; while [ ! -e go ]; do sleep 0.05; done; echo second");
        assertThat(code).as(err.toString()).isZero();
        assertThat(seen.toString()).isEqualTo("first\nsecond\n");
    }

    @Test
    void execReportsTimeoutWithExitCode124() {
        String id = create();
        Cli.Result r = cli.run("sandbox", "exec", id, "--timeout", "1s", "--", "sleep", "30");
        assertThat(r.code()).as(r.toString()).isEqualTo(124);
        assertThat(r.err()).contains("timed out");
    }

    @Test
    void copiesFilesAndDirectoriesBothWaysAndLists() throws Exception {
        String id = create();
        Path file = Files.writeString(local.resolve("notes.txt"), "hello from the host\n");
        Path dir = Files.createDirectories(local.resolve("project/src"));
        Files.writeString(dir.resolve("main.py"), "print(6 * 7)\n");
        Files.writeString(local.resolve("project/README"), "readme\n");

        assertThat(cli.run("sandbox", "cp", file.toString(), id + ":/workspace/notes.txt").code()).isZero();
        Cli.Result up = cli.run("sandbox", "cp", local.resolve("project").toString(), id + ":/workspace/project");
        assertThat(up.code()).as(up.toString()).isZero();

        Cli.Result cat = cli.run("sandbox", "exec", id, "--", "cat", "notes.txt", "project/src/main.py", "project/README");
        assertThat(cat.out()).isEqualTo("hello from the host\nprint(6 * 7)\nreadme\n");

        Cli.Result ls = cli.run("sandbox", "ls", id + ":/workspace");
        assertThat(ls.code()).isZero();
        assertThat(ls.out()).contains("notes.txt", "project/", "directory", "file");
        assertThat(cli.run("sandbox", "ls", id + ":/workspace/project/src").out()).contains("main.py");

        // a directory destination receives the source under its own name, like cp -r
        cli.run("sandbox", "exec", id, "--shell", "mkdir -p out/deep && echo result > out/deep/r.txt && echo top > out/t.txt");
        Path down = Files.createDirectories(local.resolve("down"));
        Cli.Result d1 = cli.run("sandbox", "cp", id + ":/workspace/out", down.toString());
        assertThat(d1.code()).as(d1.toString()).isZero();
        assertThat(Files.readString(down.resolve("out/deep/r.txt"))).isEqualTo("result\n");
        assertThat(Files.readString(down.resolve("out/t.txt"))).isEqualTo("top\n");

        Cli.Result d2 = cli.run("sandbox", "cp", id + ":/workspace/notes.txt", local.resolve("copy.txt").toString());
        assertThat(d2.code()).as(d2.toString()).isZero();
        assertThat(Files.readString(local.resolve("copy.txt"))).isEqualTo("hello from the host\n");

        Cli.Result missing = cli.run("sandbox", "cp", id + ":/workspace/nope.txt", local.toString());
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("no such file or directory in the sandbox");
    }

    @Test
    void aSparseFileOfGibibytesComesDownSparseWithItsData() throws Exception {
        String id = create();
        cli.run("sandbox", "exec", id, "--shell", "truncate -s 3G big && printf start | dd of=big conv=notrunc status=none"
                + " && printf end | dd of=big bs=1 seek=3000000000 conv=notrunc status=none");
        Path dest = local.resolve("big");
        Cli.Result down = cli.run("sandbox", "cp", id + ":/workspace/big", dest.toString());
        assertThat(down.code()).as(down.toString()).isZero();
        assertThat(Files.size(dest)).isEqualTo(3L << 30);
        assertThat((Long) Files.getAttribute(dest, "unix:size")).isEqualTo(3L << 30);
        try (var f = new java.io.RandomAccessFile(dest.toFile(), "r")) {
            byte[] start = new byte[5];
            f.readFully(start);
            assertThat(new String(start)).isEqualTo("start");
            f.seek(3_000_000_000L);
            byte[] end = new byte[3];
            f.readFully(end);
            assertThat(new String(end)).isEqualTo("end");
        }
        Process du = new ProcessBuilder("du", "-k", dest.toString()).start();
        long kib = Long.parseLong(new String(du.getInputStream().readAllBytes()).split("\\s+")[0]);
        assertThat(kib).as("the holes stay holes on the local disk").isLessThan(1024);
    }

    @Test
    void checkpointAndRestore() {
        String id = create();
        cli.run("sandbox", "exec", id, "--shell", "echo v1 > state.txt");
        Cli.Result cp = cli.run("sandbox", "checkpoint", id);
        assertThat(cp.code()).as(cp.toString()).isZero();
        String checkpoint = cp.out().trim();
        assertThat(checkpoint).matches("cp_[0-9a-z]{26}");
        assertThat(cli.run("sandbox", "checkpoints", id).out()).contains(checkpoint, "workspace_tar");

        cli.run("sandbox", "exec", id, "--shell", "echo v2 > state.txt; echo extra > new.txt");
        Cli.Result restore = cli.run("sandbox", "restore", id, checkpoint);
        assertThat(restore.code()).as(restore.toString()).isZero();

        Cli.Result after = cli.run("sandbox", "exec", id, "--shell", "cat state.txt; ls");
        assertThat(after.out()).isEqualTo("v1\nstate.txt\n");

        Cli.Result events = cli.run("sandbox", "events", id);
        assertThat(events.out()).contains("sandbox.running", "sandbox.checkpointed", "sandbox.restored");

        Cli.Result rm = cli.run("sandbox", "checkpoint", "rm", id, checkpoint);
        assertThat(rm.code()).as(rm.toString()).isZero();
        assertThat(rm.out()).isEqualTo("deleted " + checkpoint + "\n");
        assertThat(cli.run("sandbox", "checkpoints", id).out()).doesNotContain(checkpoint);
        Cli.Result again = cli.run("sandbox", "checkpoint", "rm", id, checkpoint);
        assertThat(again.code()).as(again.toString()).isNotZero();
        assertThat(again.err()).contains("not_found");
        assertThat(cli.run("sandbox", "checkpoint", "rm", id, "bogus").err()).contains("not a checkpoint id");
    }

    @Test
    void jsonOutputIsTheApiAnswer() {
        String id = create();
        JsonNode created = parse(cli.run("sandbox", "get", id, "--json").out());
        assertThat(created.path("id").asString()).isEqualTo(id);
        assertThat(created.path("state").asString()).isEqualTo("running");

        JsonNode page = parse(cli.run("sandbox", "list", "--json").out());
        assertThat(page.path("data").isArray()).isTrue();

        Cli.Result exec = cli.run("sandbox", "exec", id, "--json", "--", "sh", "-c", "echo 42; exit 5");
        assertThat(exec.code()).isEqualTo(5);
        JsonNode result = parse(exec.out());
        assertThat(result.path("exit_code").asInt()).isEqualTo(5);
        assertThat(result.path("stdout").asString()).isEqualTo("42\n");

        JsonNode drivers = parse(cli.run("drivers", "--json").out());
        assertThat(drivers.path("data").get(0).path("driver").asString()).isEqualTo("subprocess");

        JsonNode fresh = parse(cli.run("sandbox", "create", "--json").out());
        assertThat(fresh.path("type").asString()).isEqualTo("sandbox");
    }

    @Test
    void unsupportedSuspendIsReportedWithItsCode() {
        // the subprocess driver claims suspend_resume: unsupported, so the CLI must relay the 501 clearly
        String id = create();
        Cli.Result s = cli.run("sandbox", "suspend", id);
        assertThat(s.code()).isEqualTo(1);
        assertThat(s.err()).startsWith("error: ").contains("subprocess").endsWith("(unsupported_capability)\n");
        assertThat(s.out()).isEmpty();
    }

    @Test
    void driversTableAndKeys() {
        Cli.Result drivers = cli.run("drivers");
        assertThat(drivers.code()).isZero();
        assertThat(drivers.out()).contains("CLAIM", "subprocess", "bwrap", "runs here", "suspend/resume", "checkpoints");

        // a key in a new tenant works, and sees none of the admin's sandboxes
        create();
        Cli.Result other = cli.run("keys", "create", "--name", "other-team");
        assertThat(other.code()).as(other.toString()).isZero();
        assertThat(other.out().trim()).startsWith("pdk_");
        Cli.Result otherList = new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString(), "PADDOCK_API_KEY", other.out().trim()), dataDir)
                .run("sandbox", "list");
        assertThat(otherList.code()).as(otherList.toString()).isZero();
        assertThat(otherList.out()).startsWith("no sandboxes");

        // a key in the admin's tenant is listed and can be revoked, after which it is refused
        Cli.Result created = cli.run("keys", "create", "--name", "ci-runner", "--tenant", "default");
        assertThat(created.code()).as(created.toString()).isZero();
        String secret = created.out().trim();
        Cli.Result list = cli.run("keys", "list");
        assertThat(list.out()).contains("ci-runner", "admin");
        String keyId = list.out().lines().filter(l -> l.contains("ci-runner")).findFirst().orElseThrow().split("\\s+")[0];
        assertThat(cli.run("keys", "revoke", keyId).out()).isEqualTo("revoked " + keyId + "\n");

        Cli.Result refused = new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString(), "PADDOCK_API_KEY", secret), dataDir)
                .run("sandbox", "list");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err()).startsWith("error: ").contains("the key from PADDOCK_API_KEY was refused");
    }

    private static JsonNode parse(String json) {
        return Json.read(json);
    }
}
