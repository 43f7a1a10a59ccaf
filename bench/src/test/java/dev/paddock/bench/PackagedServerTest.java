package dev.paddock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.testing.Prerequisites;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the README's run command starts: {@code bin/paddock serve} from the packaged jar, with its embedded defaults
 * (SQLite, bubblewrap). It must come up, create a sandbox and run a command in it, over the API and with the README's
 * CLI commands ({@code bin/paddock sandbox …} from the client jar and its ahead-of-time cache). The module tests of
 * {@code app} run on the test classpath, so only this catches a jar that lost a class at run time. It lives here because this
 * module is built after {@code app} is packaged ({@code ./mvnw install}); under {@code CI=true} a missing jar fails.
 */
class PackagedServerTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theBuiltJarServesAndRunsASandbox() throws Exception {
        Path root = root();
        Path jar = root.resolve("app/target/paddock.jar");
        Prerequisites.require(Files.isRegularFile(jar), "the packaged server " + jar + " (built by ./mvnw install)");
        Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "pdj");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String key = "pdk_packaged_" + Long.toHexString(System.nanoTime());
        ProcessBuilder pb = new ProcessBuilder(root.resolve("bin/paddock").toString(), "serve", "--port", String.valueOf(port),
                "--data-dir", dataDir.toString());
        pb.environment().put("PADDOCK_API_KEY", key);
        pb.redirectErrorStream(true).redirectOutput(dataDir.resolve("server.log").toFile());
        Process server = pb.start();
        String base = "http://127.0.0.1:" + port;
        try {
            awaitHealthy(server, base, dataDir);
            String created = call(base, key, "POST", "/v1/sandboxes", "{}");
            String id = created.replaceAll("(?s).*\"id\":\"(sbx_[a-z0-9]+)\".*", "$1");
            assertThat(id).as(created).startsWith("sbx_");
            assertThat(call(base, key, "POST", "/v1/sandboxes/" + id + "/exec", "{\"argv\":[\"echo\",\"from the jar\"]}"))
                    .contains("\"exit_code\":0", "from the jar");
            drivesItWithTheCli(root, base, key, id, dataDir);
            call(base, key, "DELETE", "/v1/sandboxes/" + id + "?purge=true", null);
        } finally {
            server.destroy();
            server.waitFor();
            new ProcessBuilder("rm", "-rf", dataDir.toString()).start().waitFor();
        }
    }

    /** The README's client commands through bin/paddock: they run from the client jar, its classes from the build's cache. */
    private static void drivesItWithTheCli(Path root, String base, String key, String id, Path dataDir) throws Exception {
        Path classLog = dataDir.resolve("cli-classes.log");
        String exec = cli(root, base, key, "-Xlog:class+load:file=" + classLog, "sandbox", "exec", id, "--", "sh", "-c", "echo from the cli; exit 3");
        assertThat(exec).isEqualTo("exit 3\nfrom the cli\n");
        String classes = Files.readString(classLog);
        assertThat(classes).as("the client jar, not the whole one").contains("paddock-cli.jar").doesNotContain("paddock.jar");
        assertThat(classes).as("the command's classes come from the build's cache")
                .containsPattern("dev\\.paddock\\.app\\.cli\\.SandboxExecCommand source: shared objects file");

        Path local = Files.writeString(dataDir.resolve("data.csv"), "a,b\n1,2\n");
        assertThat(cli(root, base, key, "", "sandbox", "cp", local.toString(), id + ":/workspace/")).startsWith("exit 0\n");
        assertThat(cli(root, base, key, "", "sandbox", "ls", id + ":/workspace")).startsWith("exit 0\n").contains("data.csv");
        assertThat(cli(root, base, key, "", "sandbox", "exec", id, "--bogus")).startsWith("exit 2\n")
                .contains("Unknown option: '--bogus'").doesNotContain("Exception");
        assertThat(cli(root, base, key, "", "drivers")).as("a command of the whole jar").startsWith("exit 0\n").contains("bwrap");

        // as a user runs them: no URL or key in the environment, both read from the default data directory in the home
        Path home = Files.createDirectories(dataDir.resolve("home"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path defaults = Files.createDirectories(home.resolve(".paddock"));
        Files.writeString(defaults.resolve("paddock.url"), base);
        Files.writeString(defaults.resolve("admin.key"), key);
        for (String[] args : List.of(new String[] {"sandbox", "list"}, new String[] {"sandbox", "get", id},
                new String[] {"sandbox", "exec", id, "--", "true"}, new String[] {"sandbox", "ls", id + ":/workspace"})) {
            List<String> argv = new ArrayList<>(List.of(root.resolve("bin/paddock").toString()));
            argv.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
            pb.environment().keySet().removeIf(name -> name.startsWith("PADDOCK_"));
            pb.environment().put("HOME", home.toString());
            pb.environment().put("PADDOCK_JAVA_OPTS", "-Duser.home=" + home); // the JVM takes its home from the user database
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat("exit " + p.waitFor() + "\n" + out).as(String.join(" ", args)).startsWith("exit 0\n").doesNotContain("Exception");
        }
    }

    /** {@code bin/paddock args}: its exit code, then its output (stdout and stderr together). */
    private static String cli(Path root, String base, String key, String javaOpts, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(root.resolve("bin/paddock").toString()));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().put("PADDOCK_URL", base);
        pb.environment().put("PADDOCK_API_KEY", key);
        pb.environment().put("PADDOCK_JAVA_OPTS", javaOpts);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return "exit " + p.waitFor() + "\n" + out;
    }

    private static void awaitHealthy(Process server, String base, Path dataDir) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(server.isAlive()).as("the server exited: %s", log(dataDir)).isTrue();
            try {
                if (HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/health")).build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode() == 200) return;
            } catch (java.io.IOException notYet) {
                // still starting
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the server did not answer /v1/health within 90 s: " + log(dataDir));
    }

    private static String log(Path dataDir) throws java.io.IOException {
        String log = Files.readString(dataDir.resolve("server.log"));
        return log.length() > 4000 ? log.substring(0, 4000) : log;
    }

    private static String call(String base, String key, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60)).header("x-api-key", key)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isBetween(200, 299);
        return r.body();
    }

    private static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("conformance"))) return dir;
        }
        throw new IllegalStateException("cannot find the repository root above " + Path.of("").toAbsolutePath());
    }
}
