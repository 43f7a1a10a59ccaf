package dev.paddock.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whole-process benchmark of every driver with a kernel boundary side by side with bwrap: one real Paddock server
 * per driver (the built jar, warm pool off, so every create starts a sandbox), driven over its REST API, next to the
 * raw runtime doing the same in the same run ({@code bwrap … true}, {@code runsc run} of a bundle running
 * {@code true}, {@code docker run --rm … true}). A driver this machine cannot run is reported as such. Writes its
 * section of docs/BENCHMARKS.md. Run with {@code scripts/bench DriversBench}.
 */
public final class DriversBench {
    private static final String COLD = "{}";

    /** One driver configuration under test and the raw runtime it is compared with. */
    private record Target(String name, String driver, Map<String, String> settings, String rawName, RawRun raw) {}

    @FunctionalInterface
    private interface RawRun {
        List<String> argv(Path scratch) throws Exception;
    }

    private final Path repo;
    private final Path scratch;
    private final List<String> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private DriversBench(Path repo, Path scratch) {
        this.repo = repo;
        this.scratch = scratch;
    }

    public static void main(String[] args) {
        BenchReport.runAndExit(() -> {
            Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
            DriversBench bench = new DriversBench(repo, Files.createTempDirectory(Path.of("/tmp"), "pdbench"));
            for (Target t : targets()) {
                try {
                    bench.measure(t);
                } catch (Exception e) {
                    bench.notes.add("- `" + t.name() + "`: the run failed here: " + e.getMessage());
                }
            }
            String report = bench.report();
            BenchReport.writeSection(repo, "drivers", report);
            System.out.println(report);
        });
    }

    private static List<Target> targets() {
        return List.of(
                new Target("bwrap", "bwrap", Map.of(), "`bwrap … true`", s -> List.of("bwrap", "--unshare-all", "--new-session",
                        "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
                        "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "true")),
                new Target("gvisor", "gvisor", Map.of(), "`runsc run` (`true`)", DriversBench::rawRunsc),
                new Target("docker (runc)", "docker", Map.of("docker_runtime", "runc"), "`docker run --rm` (`true`)", s -> rawDocker("runc")),
                new Target("docker (runsc)", "docker", Map.of("docker_runtime", "runsc"), "`docker run --rm --runtime runsc` (`true`)",
                        s -> rawDocker("runsc")));
    }

    private void measure(Target t) throws Exception {
        Map<String, String> settings = new HashMap<>(t.settings());
        settings.put("driver", t.driver());
        settings.put("warm_pool_size", "0");
        BenchServer server;
        try {
            server = BenchServer.start(repo, settings);
        } catch (IllegalStateException e) {
            notes.add("- `" + t.name() + "`: not measured, the server could not start with it here (" + e.getMessage() + ")");
            return;
        }
        try {
            String drivers = server.get("/v1/drivers");
            boolean memory = drivers.contains("\"driver\":\"" + t.driver() + "\"") && memoryCheckpoints(drivers, t.driver());

            // the first create imports what the driver needs (images, /etc base): not part of the timing
            server.delete(created(server));
            List<String> raw = t.raw().argv(scratch);
            Samples.of(3, () -> run(raw));
            double[] rawMs = Samples.of(10, () -> run(raw));

            double[] create = Samples.timedPart(10, () -> {
                long t0 = System.nanoTime();
                String id = server.create(COLD);
                server.execTrue(id);
                double ms = (System.nanoTime() - t0) / 1e6;
                server.delete(id);
                return ms;
            });
            String sbx = created(server);
            Samples.of(50, () -> server.execTrue(sbx));
            double[] exec = Samples.of(100, () -> server.execTrue(sbx));
            double[] suspendResume = Samples.of(20, () -> {
                server.post("/v1/sandboxes/" + sbx + "/suspend", "{}");
                server.post("/v1/sandboxes/" + sbx + "/resume", "{}");
            });
            String checkpoint = "—", restore = "—";
            if (memory) {
                List<String> cps = new ArrayList<>();
                double[] take = Samples.of(5, () -> cps.add(BenchServer.idIn(server.post("/v1/sandboxes/" + sbx + "/checkpoints", "{\"type\":\"memory\"}"))));
                AtomicInteger next = new AtomicInteger();
                double[] back = Samples.of(5, () -> server.post("/v1/sandboxes/" + sbx + "/checkpoints/" + cps.get(next.getAndIncrement()) + "/restore", "{}"));
                checkpoint = ms(take);
                restore = ms(back);
            }
            server.delete(sbx);

            long before = memAvailableKiB();
            List<String> idle = new ArrayList<>();
            for (int i = 0; i < 10; i++) idle.add(created(server));
            Thread.sleep(3000);
            double idleMiB = (before - memAvailableKiB()) / 10.0 / 1024;
            for (String id : idle) server.delete(id);

            String browser = browserToScreenshot(server);
            rows.add(String.format(Locale.ROOT, "| `%s` | %s: %s | %s (%.1f×) | %s | %s | %s | %s | %.1f MiB | %s |", t.name(), t.rawName(), ms(rawMs),
                    ms(create), BenchReport.median(create) / BenchReport.median(rawMs), ms(exec), ms(suspendResume), checkpoint, restore, idleMiB, browser));
        } finally {
            server.deleteAll();
            server.close();
        }
    }

    private static String created(BenchServer server) throws Exception {
        String id = server.create(COLD);
        server.execTrue(id);
        return id;
    }

    /** A browser sandbox created → its first screenshot, twice (Chromium's start dominates). */
    private static String browserToScreenshot(BenchServer server) {
        try {
            double[] ms = Samples.timedPart(2, () -> {
                long t0 = System.nanoTime();
                String id = server.create("{\"template\":\"browser\"}");
                String shot = server.post("/v1/sandboxes/" + id + "/browser/actions", "{\"action\":\"screenshot\"}");
                double took = (System.nanoTime() - t0) / 1e6;
                if (!shot.contains("\"screenshot\"")) throw new IllegalStateException("no screenshot: " + shot);
                server.delete(id);
                return took;
            });
            return ms(ms);
        } catch (Exception e) {
            return "failed: " + e.getMessage();
        }
    }

    private static boolean memoryCheckpoints(String drivers, String driver) {
        int at = drivers.indexOf("\"driver\":\"" + driver + "\"");
        int end = drivers.indexOf("\"driver\":\"", at + 1);
        String record = drivers.substring(at, end < 0 ? drivers.length() : end);
        return record.contains("\"memory\"");
    }

    /** A bundle of the host's /usr read-only running {@code true}, made once; each run gets a new container id. */
    private static List<String> rawRunsc(Path scratch) throws Exception {
        Path bundle = scratch.resolve("runsc-bundle");
        if (!Files.isDirectory(bundle)) {
            Path root = Files.createDirectories(bundle.resolve("rootfs"));
            for (String d : List.of("usr", "proc", "dev", "tmp")) Files.createDirectories(root.resolve(d));
            for (String l : List.of("bin", "lib", "lib64", "sbin")) Files.createSymbolicLink(root.resolve(l), Path.of("usr/" + l));
            Files.writeString(bundle.resolve("config.json"), """
                    {"ociVersion": "1.0.0",
                     "process": {"user": {"uid": 0, "gid": 0}, "args": ["/usr/bin/true"], "env": ["PATH=/usr/bin"], "cwd": "/"},
                     "root": {"path": "rootfs", "readonly": true},
                     "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                                {"destination": "/usr", "type": "bind", "source": "/usr", "options": ["rbind", "ro"]}],
                     "linux": {"namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}]}}
                    """);
        }
        // a new container id per run: the shell's pid
        return List.of("sh", "-c", "runsc --root \"$1/runsc-state\" --network=none run --bundle \"$1/runsc-bundle\" raw-$2-$$",
                "sh", bundle.getParent().toString(), Long.toString(ProcessHandle.current().pid()));
    }

    /** The driver's own host-root image (imported by the server's first create), with the host's /usr bound. */
    private static List<String> rawDocker(String runtime) throws Exception {
        Process images = new ProcessBuilder("docker", "images", "--format", "{{.Repository}}:{{.Tag}}", "paddock-host-root").start();
        String image = new String(images.getInputStream().readAllBytes()).lines().findFirst()
                .orElseThrow(() -> new IllegalStateException("no paddock-host-root image in the engine"));
        images.waitFor();
        return List.of("docker", "run", "--rm", "--network", "none", "--runtime", runtime, "-v", "/usr:/usr:ro",
                "--entrypoint", "/usr/bin/true", image);
    }

    private static void run(List<String> argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new IllegalStateException(String.join(" ", argv) + ": exit " + p.exitValue() + ": " + out);
    }

    private static String ms(double[] samples) {
        return String.format(Locale.ROOT, "%.1f ms", BenchReport.median(samples));
    }

    private static long memAvailableKiB() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemAvailable:")) return Long.parseLong(line.replaceAll("\\D", ""));
        }
        throw new IllegalStateException("no MemAvailable in /proc/meminfo");
    }

    private String report() throws Exception {
        return """
                ## Drivers side by side (DriversBench)

                Measured by `bench/…/DriversBench.java`: for each driver a real Paddock server started from the built jar
                (warm pool off: every create starts a sandbox), driven over its REST API on loopback, next to the raw
                runtime running `true` in the same run. Medians (create: 10, exec: 100, suspend + resume: 20, memory
                checkpoint and restore of an idle sandbox: 5, browser: 2). Idle memory: MemAvailable drop over 10 idle
                sandboxes. Machine: %s; store SQLite.

                | driver | raw runtime | create → first exec (× raw) | exec `true` | suspend + resume | memory checkpoint | memory restore | idle memory per sandbox | browser create → first screenshot |
                |---|---|---|---|---|---|---|---|---|
                %s
                %s
                Targets: create → first exec within 2× the raw runtime doing the same; memory restore of an idle sandbox
                under a second.
                """.formatted(BenchReport.machine(), String.join("\n", rows), notes.isEmpty() ? "" : "\n" + String.join("\n", notes) + "\n");
    }
}
