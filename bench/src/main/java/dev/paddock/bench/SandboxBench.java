package dev.paddock.bench;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.init.InitClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whole-process benchmark: starts a real Paddock server (the built jar) on a temp data dir and measures, through
 * its REST API, what a user experiences — next to raw {@code bwrap … true} measured in the same run as the baseline.
 * Writes its section of docs/BENCHMARKS.md. Run with {@code scripts/bench}.
 */
public final class SandboxBench {
    private final BenchServer server;
    private final List<String> rows = new ArrayList<>();

    private SandboxBench(BenchServer server) {
        this.server = server;
    }

    public static void main(String[] args) throws Exception {
        Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        int density = Integer.parseInt(System.getenv().getOrDefault("PADDOCK_BENCH_DENSITY", "500"));
        try (BenchServer server = BenchServer.start(repo, Map.of())) {
            SandboxBench bench = new SandboxBench(server);
            bench.run(density);
            String report = bench.report(density);
            BenchReport.writeSection(repo, "sandboxes", report);
            System.out.println(report);
        }
    }

    private void run(int density) throws Exception {
        List<String> bwrap = rawBwrap();
        sample(20, () -> exec(bwrap)); // warm-up
        double[] raw = sample(200, () -> exec(bwrap));
        row("raw `bwrap … true` (baseline)", raw, null);

        // cold: a non-default setting (an env var) bypasses the warm pool, so the sandbox really starts
        sample(20, () -> createExecDelete(COLD));
        double[] cold = sampleTimedPart(50, () -> createExecDelete(COLD));
        row("create → first exec `true` finished, cold start (REST)", cold, raw);

        // warm: default settings are served from the warm pool; a pause between rounds (not timed) lets it refill
        sample(10, () -> {
            createExecDelete(WARM);
            pauseUntimed();
        });
        double[] warm = sampleTimedPart(50, () -> {
            createExecDelete(WARM);
            pauseUntimed();
        });
        row("create → first exec `true` finished, from the warm pool (REST)", warm, raw);

        String sbx = server.create(WARM);
        sample(500, () -> server.execTrue(sbx)); // warm-up: steady state, after the JIT compiled the request path
        double[] exec = sample(500, () -> server.execTrue(sbx));
        row("exec round trip `true` (REST)", exec, null);
        // the driver's part alone: the same exec straight through the sandbox's init socket, no HTTP, no store
        InitClient init = new InitClient(server.dataDir.resolve("run").resolve(sbx).resolve("init.sock"));
        ExecRequest execTrue = new ExecRequest(List.of("true"), Map.of(), "/workspace", Duration.ofSeconds(60), null);
        double[] direct = sample(500, () -> {
            ExecResult r = init.exec(execTrue, ExecOutput.DISCARD, () -> 0).await();
            if (r.exitCode() != 0) throw new IllegalStateException("exec through the init socket answered " + r);
        });
        row("exec `true` through the sandbox's init socket only (the driver's part of the round trip)", direct, null);
        // the floor under both: the same command started and reaped on the host, no sandbox (a process start's own cost)
        List<String> hostTrue = List.of("/usr/bin/true");
        sample(20, () -> exec(hostTrue));
        row("for reference: `/usr/bin/true` on the host, no sandbox, started by the JVM (ProcessBuilder: jspawnhelper, then the command)", sample(200, () -> exec(hostTrue)), null);

        sample(20, () -> {
            server.post("/v1/sandboxes/" + sbx + "/suspend", "{}");
            server.post("/v1/sandboxes/" + sbx + "/resume", "{}");
        });
        double[] suspendResume = sample(100, () -> {
            server.post("/v1/sandboxes/" + sbx + "/suspend", "{}");
            server.post("/v1/sandboxes/" + sbx + "/resume", "{}");
        });
        row("suspend + resume (REST)", suspendResume, null);
        server.delete(sbx);

        long before = memAvailable();
        List<String> idle = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < density; i++) idle.add(server.create(COLD));
        double seconds = (System.nanoTime() - start) / 1e9;
        Thread.sleep(2000);
        long after = memAvailable();
        double perSandboxKiB = (before - after) / (double) density;
        rows.add(String.format(Locale.ROOT, "| density: %d idle sandboxes created | %.1f s total | | host memory per idle sandbox: **%.0f KiB** (MemAvailable drop / %d) |",
                density, seconds, perSandboxKiB, density));
        long fit = (long) (24L * 1024 * 1024 / Math.max(perSandboxKiB, 1));
        rows.add(String.format(Locale.ROOT, "| density: idle sandboxes that fit in 24 GiB at that rate | ≈ %d | | |", fit));
        for (String id : idle) server.delete(id);
    }

    private List<String> rawBwrap() {
        return List.of("bwrap", "--unshare-all", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr",
                "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                "--symlink", "usr/sbin", "/sbin", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "true");
    }

    private static final String COLD = "{\"env\":{\"BENCH\":\"cold\"}}";
    private static final String WARM = "{}";

    private void createExecDelete(String request) throws Exception {
        long t0 = System.nanoTime();
        String id = server.create(request);
        server.execTrue(id);
        lastMs = (System.nanoTime() - t0) / 1e6;
        server.delete(id);
    }

    private double lastMs;

    private static void pauseUntimed() throws InterruptedException {
        Thread.sleep(300);
    }

    private static void exec(List<String> argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        if (p.waitFor() != 0) throw new IllegalStateException("exit " + p.exitValue() + ": " + new String(p.getInputStream().readAllBytes()));
    }

    interface Op { void run() throws Exception; }

    /** Like {@link #sample(int, Op)} but records {@link #lastMs}: the timed part (create + exec) of an op that also cleans up or waits. */
    private double[] sampleTimedPart(int n, Op op) throws Exception {
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            op.run();
            ms[i] = lastMs;
        }
        Arrays.sort(ms);
        return ms;
    }

    private static double[] sample(int n, Op op) throws Exception {
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            op.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return ms;
    }

    private void row(String what, double[] sorted, double[] baseline) {
        String ratio = baseline == null ? "" : String.format(Locale.ROOT, "%.2f× raw bwrap", median(sorted) / median(baseline));
        rows.add(String.format(Locale.ROOT, "| %s | %.2f ms | %.2f ms | %s |", what, median(sorted), sorted[(int) (sorted.length * 0.9)], ratio));
    }

    private static double median(double[] sorted) {
        return sorted[sorted.length / 2];
    }

    private static long memAvailable() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemAvailable:")) return Long.parseLong(line.replaceAll("\\D", ""));
        }
        throw new IllegalStateException("no MemAvailable in /proc/meminfo");
    }

    private String report(int density) throws IOException {
        return """
                ## Sandboxes: lifecycle through the REST API (bwrap driver)

                Measured by `bench/…/SandboxBench.java`: a real Paddock server started from the built jar on a temp data
                dir, driven over its REST API on loopback, next to raw `bwrap … true` measured in the same run. Medians
                and 90th percentiles. Machine: %s; store SQLite.

                | what | median | p90 | vs baseline |
                |---|---|---|---|
                %s

                Targets: create → first exec within 2× raw bwrap; exec round trip ≤ 3 ms; suspend + resume ≤ 10 ms;
                ≥ 500 idle sandboxes on a 24 GiB machine (density run: %d sandboxes). A create with default settings is
                served from the warm pool (`warm_pool_size`, default 2); a create with any other setting starts a sandbox
                ("cold start"): both are measured.
                """.formatted(BenchReport.machine(), String.join("\n", rows), density);
    }

}
