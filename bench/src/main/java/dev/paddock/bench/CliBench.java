package dev.paddock.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A CLI command as a whole process, beside {@code docker}'s in the same run: {@code paddock sandbox exec ID -- true}
 * (bin/paddock: the client options and the build's ahead-of-time cache) against {@code docker exec CONTAINER true},
 * the same jar on a plain JVM (no options, no cache), and curl to the same API as the floor; then a 1 MiB
 * {@code paddock sandbox cp} against {@code docker cp}. Target: a client command at most 2× {@code docker exec}.
 * Writes its section of docs/BENCHMARKS.md. Run with {@code scripts/bench CliBench}.
 */
public final class CliBench {
    private static final int RUNS = 20;

    private final Path repo;
    private final BenchServer server;
    private final List<String> rows = new ArrayList<>();

    private CliBench(Path repo, BenchServer server) {
        this.repo = repo;
        this.server = server;
    }

    public static void main(String[] args) {
        BenchReport.runAndExit(() -> {
            Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
            Path scratch = Files.createTempDirectory(Path.of("/tmp"), "pclibench");
            try (BenchServer server = BenchServer.start(repo, Map.of("warm_pool_size", "0"))) {
                String report = new CliBench(repo, server).run(scratch);
                BenchReport.writeSection(repo, "cli", report);
                System.out.println(report);
            }
        });
    }

    private String run(Path scratch) throws Exception {
        String id = server.create("{}");
        String container = dockerContainer();
        Path file = scratch.resolve("one-mib.bin");
        Files.write(file, new byte[1 << 20]);
        try {
            double[] docker = container == null ? null : time(List.of("docker", "exec", container, "true"));
            double[] cli = time(paddock("sandbox", "exec", id, "--", "true"));
            row("`paddock sandbox exec ID -- true` (bin/paddock)", cli, docker);
            row("the same jar on a plain JVM (`java -jar`, no options, no cache)", time(plainJvm("sandbox", "exec", id, "--", "true")), docker);
            if (docker != null) row("`docker exec CONTAINER true`", docker, docker);
            row("curl `POST /v1/sandboxes/ID/exec` (`true`)", time(List.of("curl", "-sf", "-o", "/dev/null", "-H", "x-api-key: " + server.key(),
                    "-H", "content-type: application/json", "-d", "{\"argv\":[\"true\"]}", server.url() + "/v1/sandboxes/" + id + "/exec")), docker);
            double[] dockerCp = container == null ? null : time(List.of("docker", "cp", file.toString(), container + ":/tmp/one-mib.bin"));
            row("`paddock sandbox cp` 1 MiB into the sandbox", time(paddock("sandbox", "cp", file.toString(), id + ":/workspace/one-mib.bin")), dockerCp);
            if (dockerCp != null) row("`docker cp` 1 MiB into the container", dockerCp, dockerCp);
        } finally {
            if (container != null) new ProcessBuilder("docker", "rm", "-f", container).redirectErrorStream(true).start().waitFor();
            server.deleteAll();
        }
        return report(container != null);
    }

    /** A container to exec into: the docker driver's host-root image when the engine has it, else none. */
    private static String dockerContainer() {
        try {
            Process images = new ProcessBuilder("docker", "images", "--format", "{{.Repository}}:{{.Tag}}").start();
            List<String> all = new String(images.getInputStream().readAllBytes()).lines().toList();
            if (images.waitFor() != 0 || all.isEmpty()) return null;
            String image = all.stream().filter(i -> i.startsWith("paddock-host-root")).findFirst().orElse(all.getFirst());
            Process run = new ProcessBuilder("docker", "run", "-d", "--network", "none", "-v", "/usr:/usr:ro",
                    "--entrypoint", "/usr/bin/sleep", image, "infinity").start();
            String id = new String(run.getInputStream().readAllBytes()).trim();
            return run.waitFor() == 0 && !id.isEmpty() ? id : null;
        } catch (Exception e) {
            return null;
        }
    }

    private List<String> paddock(String... args) {
        List<String> argv = new ArrayList<>(List.of(repo.resolve("bin/paddock").toString()));
        argv.addAll(List.of(args));
        return argv;
    }

    private List<String> plainJvm(String... args) {
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", repo.resolve("app/target/paddock.jar").toString()));
        argv.addAll(List.of(args));
        return argv;
    }

    /** Whole-process milliseconds of {@code argv}, after one untimed run. */
    private double[] time(List<String> argv) throws Exception {
        exec(argv);
        return Samples.of(RUNS, () -> exec(argv));
    }

    /** Runs {@code argv} with the server's URL and key in the environment, as a user of the CLI would have them. */
    private void exec(List<String> argv) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().put("PADDOCK_URL", server.url());
        pb.environment().put("PADDOCK_API_KEY", server.key());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new IllegalStateException(String.join(" ", argv) + ": exit " + p.exitValue() + ": " + out);
    }

    private void row(String what, double[] ms, double[] baseline) {
        String ratio = baseline == null ? "–" : String.format(Locale.ROOT, "%.1f×", BenchReport.median(ms) / BenchReport.median(baseline));
        rows.add(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %s |", what, BenchReport.median(ms), BenchReport.percentile(ms, 0.9), ratio));
    }

    private String report(boolean docker) throws Exception {
        StringBuilder sb = new StringBuilder("## The CLI as a whole process (CliBench)\n\n");
        sb.append(BenchReport.machine()).append(". ").append(RUNS).append(" runs each after one untimed run, one bwrap sandbox (or one")
                .append(" container of the engine's) exec'd into; milliseconds from process start to exit. The ratio is to `docker exec`")
                .append(" (or `docker cp`) in the same run; target: a client command at most 2×.\n\n");
        sb.append("| command | median ms | p90 ms | vs docker |\n|---|---:|---:|---:|\n");
        rows.forEach(r -> sb.append(r).append('\n'));
        if (!docker) sb.append("\nNo Docker engine answered here, so there is no docker baseline in this run.\n");
        sb.append("\nA `sandbox` command starts from the small client jar (`app/target/paddock-cli.jar`) with `bin/cli-jvm.options`")
                .append(" (C1 only, the serial GC) and the ahead-of-time cache the build records for it (`app/target/paddock-cli.aot`,")
                .append(" JDK 25) from a training run of those commands; the hot ones are parsed without picocli, JSON goes through")
                .append(" jackson-core's streaming API without databind's mapper, and the client speaks HTTP/1.1 over a plain socket")
                .append(" (TLS only for https).\n");
        return sb.toString();
    }
}
