package dev.paddock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Many idle sandboxes on one host: creates N bwrap sandboxes (64 MiB memory limit each) one after the other through
 * the REST API of a real {@code paddock serve}, and reports the create rate of every thousand (a quarter of a run below 4,000; first against last
 * shows whether a create gets slower as the host fills), host memory per sandbox, the exec round trip with all of
 * them up, and the delete rate; then deletes them all. Besides the wall-clock rate, which moves with whatever else
 * the machine runs, each row has two CPU figures that do not: the server's own time per create, and the CPU time
 * each new sandbox had used once it answered (its cgroup's {@code cpu_nanos}: the launcher, bwrap setting up the
 * mount namespace, and init), plus the number of mounts in the host's mount table at the row's end. Arguments: the
 * repository, N (default {@code PADDOCK_BENCH_MANY}, else 10,000; a host needs {@code kernel.pid_max} above about
 * 2 per sandbox, see docs/CONFIGURATION.md), and {@code --no-report} to print without rewriting docs/BENCHMARKS.md.
 */
public final class ManySandboxesBench {
    private static final String CREATE = "{\"limits\":{\"memory\":\"64m\"}}";
    private static final Pattern CPU_NANOS = Pattern.compile("\"cpu_nanos\"\\s*:\\s*(-?\\d+)");

    private final BenchServer server;
    private final int wanted;
    /** Creates per row of the report: a thousand, or a quarter of a smaller run. */
    private final int step;
    private final List<String> ids = new ArrayList<>();
    /** Milliseconds of each create, in order. */
    private final List<Double> createMs = new ArrayList<>();
    /** CPU milliseconds the server (with the launchers it reaped) spent on each row's creates. */
    private final List<Double> serverCpuMs = new ArrayList<>();
    /** CPU milliseconds each new sandbox had used when its create returned (-1 where the driver cannot tell). */
    private final List<Double> startCpuMs = new ArrayList<>();
    /** Lines of the host's /proc/self/mountinfo at the end of each row. */
    private final List<Long> mounts = new ArrayList<>();
    private String stoppedBy;

    private ManySandboxesBench(BenchServer server, int wanted) {
        this.server = server;
        this.wanted = wanted;
        this.step = wanted >= 4000 ? 1000 : Math.max(1, wanted / 4);
    }

    public static void main(String[] args) {
        BenchReport.runAndExit(() -> {
            Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
            int n = Integer.parseInt(args.length > 1 ? args[1] : System.getenv().getOrDefault("PADDOCK_BENCH_MANY", "10000"));
            boolean write = !List.of(args).contains("--no-report");
            checkProcessLimits(n);
            // no sandbox may reach its lifetime or idle policy during the run
            BenchServer server = BenchServer.start(repo, Map.of("default_timeout", "24h", "warm_pool_size", "0"));
            try (server) {
                ManySandboxesBench bench = new ManySandboxesBench(server, n);
                String report;
                try {
                    report = bench.run();
                } finally {
                    bench.deleteAll();
                }
                report += bench.deleteLine();
                System.out.println(report);
                if (write) BenchReport.writeSection(repo, "many", report);
            }
            removeDataDir(server.dataDir);
        });
    }

    /**
     * Each idle sandbox holds two processes (its init and the kernel thread of its disk image): a run the
     * kernel's limits cannot hold is refused before it starts, naming the setting, rather than stopped by 503s.
     */
    private static void checkProcessLimits(int n) throws IOException {
        long needed = 2L * n + 10_000;
        for (String name : List.of("pid_max", "threads-max")) {
            long value;
            try (var in = Files.newInputStream(Path.of("/proc/sys/kernel", name))) {
                value = Long.parseLong(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim());
            }
            if (value < needed) {
                throw new IllegalStateException("kernel." + name + " is " + value + ", too few for " + n + " sandboxes: sysctl -w kernel.pid_max="
                        + Math.max(needed, 4_194_304) + " kernel.threads-max=" + Math.max(needed, 4_194_304) + " (and set both back after the run)");
            }
        }
    }

    /**
     * The server's data directory once it stopped: the images of the deleted sandboxes (sparse, but thousands of them)
     * and its database. Kept, with a note, while anything is still mounted under it.
     */
    private static void removeDataDir(Path dataDir) throws IOException {
        try (var lines = Files.lines(Path.of("/proc/self/mountinfo"))) {
            if (lines.anyMatch(l -> l.split(" ")[4].startsWith(dataDir + "/"))) {
                System.err.println("kept " + dataDir + ": something is still mounted under it");
                return;
            }
        }
        try (var tree = Files.walk(dataDir)) {
            for (Path p : tree.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    private String run() throws Exception {
        long before = memAvailableKiB();
        long t0 = System.nanoTime();
        double cpu0 = serverCpuMs();
        for (int i = 0; i < wanted; i++) {
            long c0 = System.nanoTime();
            try {
                ids.add(server.create(CREATE));
            } catch (IllegalStateException refused) {
                stoppedBy = refused.getMessage();
                break;
            }
            createMs.add((System.nanoTime() - c0) / 1e6);
            startCpuMs.add(startCpuMs(ids.getLast()));
            if ((i + 1) % step == 0) {
                double cpu = serverCpuMs();
                serverCpuMs.add(cpu - cpu0);
                cpu0 = cpu;
                mounts.add(mountCount());
                System.err.printf(Locale.ROOT, "%d sandboxes, last %d at %.1f/s, sandbox start CPU median %.1f ms, server CPU %.1f ms per create,"
                                + " %d mounts, %.0f s in%n", i + 1, step, step / (sum(createMs.subList(i + 1 - step, i + 1)) / 1000),
                        BenchReport.median(array(startCpuMs.subList(i + 1 - step, i + 1))), serverCpuMs.getLast() / step, mounts.getLast(),
                        (System.nanoTime() - t0) / 1e9);
            }
        }
        double totalSeconds = (System.nanoTime() - t0) / 1e9;
        Thread.sleep(2000);
        double perSandboxKiB = (before - memAvailableKiB()) / (double) Math.max(1, ids.size());
        double[] exec = execSample();
        return report(totalSeconds, perSandboxKiB, exec);
    }

    /** Exec round trips of {@code true} in sandboxes picked at random among all of them, after a warm-up. */
    private double[] execSample() throws Exception {
        if (ids.isEmpty()) return new double[] {0};
        for (int i = 0; i < 50; i++) server.execTrue(ids.get(ThreadLocalRandom.current().nextInt(ids.size())));
        double[] ms = new double[300];
        for (int i = 0; i < ms.length; i++) {
            String id = ids.get(ThreadLocalRandom.current().nextInt(ids.size()));
            long t0 = System.nanoTime();
            server.execTrue(id);
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        return ms;
    }

    private double deleteSeconds = -1;
    private int deleted;

    private void deleteAll() throws Exception {
        long t0 = System.nanoTime();
        for (String id : ids) {
            server.delete(id);
            deleted++;
        }
        deleteSeconds = (System.nanoTime() - t0) / 1e9;
        server.deleteAll(); // anything a failed create left behind
    }

    private String deleteLine() {
        return String.format(Locale.ROOT, "%nAll %d deleted one after the other in %.1f s (%.0f/s).%n", deleted, deleteSeconds,
                deleted / Math.max(deleteSeconds, 1e-9));
    }

    private String report(double totalSeconds, double perSandboxKiB, double[] exec) throws IOException {
        StringBuilder rows = new StringBuilder();
        for (int from = 0; from < createMs.size(); from += step) {
            List<Double> part = createMs.subList(from, Math.min(from + step, createMs.size()));
            double[] ms = array(part);
            double[] start = array(startCpuMs.subList(from, from + part.size()));
            int row = from / step;
            String cpu = row < serverCpuMs.size() ? String.format(Locale.ROOT, "%.1f", serverCpuMs.get(row) / part.size()) : "—";
            String startCpu = BenchReport.median(start) < 0 ? "—" : String.format(Locale.ROOT, "%.1f", BenchReport.median(start));
            String mountLines = row < mounts.size() ? Long.toString(mounts.get(row)) : "—";
            rows.append(String.format(Locale.ROOT, "| %d–%d | %.1f | %.1f | %.1f | %s | %s | %s |%n", from + 1, from + part.size(),
                    part.size() / (sum(part) / 1000), BenchReport.median(ms), BenchReport.percentile(ms, 0.99), cpu, startCpu, mountLines));
        }
        String stop = stoppedBy == null ? "" : "\nThe run stopped early: create " + (ids.size() + 1) + " answered " + stoppedBy + "\n";
        return """
                ## Many sandboxes on one host (ManySandboxesBench)

                %s; bwrap driver, store SQLite.

                %d idle sandboxes (`limits.memory` 64 MiB, default disk limit) created one after the other through
                `POST /v1/sandboxes` of a real `paddock serve`, in %.0f s (%.0f/s overall). Per %d:

                | sandboxes | creates/s | create median (ms) | create p99 (ms) | server CPU per create (ms) | sandbox start CPU, median (ms) | host mounts at end |
                |---|---|---|---|---|---|---|
                %s
                Host memory per idle sandbox: %s. With all of them up, exec `true`
                in a sandbox picked at random: median **%.2f ms**, p90 %.2f ms.
                %s""".formatted(BenchReport.machine(), ids.size(), totalSeconds, ids.size() / totalSeconds, step, rows.toString().strip(),
                perSandboxKiB > 0 ? String.format(Locale.ROOT, "**%.0f KiB** (MemAvailable drop / %d)", perSandboxKiB, ids.size())
                        : "not measured (MemAvailable rose meanwhile: other work on the machine freed memory)", BenchReport.median(exec), BenchReport.percentile(exec, 0.9), stop);
    }

    /**
     * CPU time of the server process and of the children it waited for (the launchers), from /proc: unlike the
     * create rate it does not move with what else the machine runs.
     */
    private double serverCpuMs() throws IOException {
        String stat = Files.readString(Path.of("/proc/" + server.pid() + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        return ticks * 1000.0 / CLOCK_TICKS;
    }

    /** The CPU time the sandbox's cgroup used until now (GET /v1/sandboxes/{id}), in ms; -1 where the driver cannot tell. */
    private double startCpuMs(String id) throws Exception {
        Matcher m = CPU_NANOS.matcher(server.get("/v1/sandboxes/" + id));
        return m.find() && Long.parseLong(m.group(1)) >= 0 ? Long.parseLong(m.group(1)) / 1e6 : -1;
    }

    /** Mounts in the host's mount table (this process runs in the server's mount namespace). */
    private static long mountCount() throws IOException {
        try (var lines = Files.lines(Path.of("/proc/self/mountinfo"))) {
            return lines.count();
        }
    }

    private static double[] array(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** USER_HZ, which is 100 on Linux on every architecture Paddock runs on. */
    private static final int CLOCK_TICKS = 100;

    private static double sum(List<Double> ms) {
        double s = 0;
        for (double m : ms) s += m;
        return s;
    }

    private static long memAvailableKiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemAvailable:")) return Long.parseLong(line.replaceAll("\\D", ""));
        }
        throw new IllegalStateException("no MemAvailable in /proc/meminfo");
    }
}
