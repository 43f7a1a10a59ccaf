package dev.paddock.bench;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What the sandboxes' seccomp filter costs: the same raw {@code bwrap} command with and without {@code --seccomp}
 * (the filter the bwrap driver installs, written by its {@code paddock-init seccomp}), the two variants alternating
 * so drift on a shared machine hits both alike. Writes its section of docs/BENCHMARKS.md. Run with
 * {@code scripts/bench SeccompBench}.
 */
public final class SeccompBench {
    private final Path filter;
    private final List<String> rows = new ArrayList<>();

    private SeccompBench(Path filter) {
        this.filter = filter;
    }

    public static void main(String[] args) throws Exception {
        Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        Path dir = Files.createTempDirectory("paddock-seccomp-bench");
        Path init = dir.resolve("paddock-init");
        try (InputStream in = SeccompBench.class.getResourceAsStream("/native/paddock-init")) {
            if (in == null) throw new IllegalStateException("no /native/paddock-init on the classpath: build driver-bwrap first");
            Files.copy(in, init);
        }
        Files.setPosixFilePermissions(init, PosixFilePermissions.fromString("rwx------"));
        Path filter = dir.resolve("filter.bpf");
        Process dump = new ProcessBuilder(init.toString(), "seccomp").redirectOutput(filter.toFile()).start();
        if (dump.waitFor() != 0) throw new IllegalStateException("paddock-init seccomp failed");

        SeccompBench bench = new SeccompBench(filter);
        String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        bench.compare("start and exit: `true`", List.of("true"), 10, 100);
        bench.compare("1M system calls: `dd bs=1 count=500000` /dev/zero → /dev/null", List.of("dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=500000", "status=none"), 2, 10);
        bench.compare("`python3 -c 'import json, ssl, threading'`", List.of("python3", "-c", "import json, ssl, threading"), 5, 30);
        bench.compare("Chromium: `chromium --headless --dump-dom` of a data: URL", List.of("chromium", "--headless", "--no-sandbox", "--disable-gpu",
                "--user-data-dir=/tmp/profile", "--dump-dom", "data:text/html,<p>hi</p>"), 1, 6);
        load += " → " + Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        String report = bench.report(Files.size(filter) / 8, load);
        BenchReport.writeSection(repo, "seccomp", report);
        System.out.println(report);
        for (Path p : List.of(filter, init, dir)) Files.deleteIfExists(p);
    }

    private void compare(String what, List<String> command, int warmup, int rounds) throws Exception {
        for (int i = 0; i < warmup; i++) {
            run(command, false);
            run(command, true);
        }
        double[] without = new double[rounds], with = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            // each goes first every other round: neither profits from what the other left warm
            if (i % 2 == 0) {
                without[i] = run(command, false);
                with[i] = run(command, true);
            } else {
                with[i] = run(command, true);
                without[i] = run(command, false);
            }
        }
        Arrays.sort(without);
        Arrays.sort(with);
        double a = median(without), b = median(with);
        rows.add(String.format(Locale.ROOT, "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %+.1f%% |", what, rounds,
                a, p90(without), b, p90(with), (b - a) / a * 100));
    }

    /** One run in milliseconds. stdin is the filter file in both variants; only one hands it to bwrap (fd 0). */
    private double run(List<String> command, boolean seccomp) throws Exception {
        List<String> argv = new ArrayList<>(List.of("bwrap", "--unshare-all", "--new-session", "--cap-drop", "ALL",
                "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
                "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin", "--ro-bind", "/etc", "/etc",
                "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"));
        if (seccomp) argv.addAll(List.of("--seccomp", "0"));
        argv.addAll(command);
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(argv).redirectInput(filter.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        int exit = p.waitFor();
        double ms = (System.nanoTime() - t0) / 1e6;
        if (exit != 0) throw new IllegalStateException(String.join(" ", argv) + " exited with " + exit);
        return ms;
    }

    private static double median(double[] sorted) {
        return sorted[sorted.length / 2];
    }

    private static double p90(double[] sorted) {
        return sorted[(int) (sorted.length * 0.9)];
    }

    private String report(long instructions, String load) throws Exception {
        return """
                ## Seccomp filter (SeccompBench)

                %s (1-minute load average during the run: %s)

                The same raw `bwrap` command (every namespace unshared, host `/usr` and `/etc` read-only) without and
                with the sandboxes' seccomp filter (`init-agent/src/main/c/paddock-seccomp.h`, %d BPF instructions), the two variants
                alternating; whole process, from start to exit (ms). Every sandbox of the bwrap driver runs under this
                filter.

                | workload | rounds | without: median | p90 | with filter: median | p90 | median change |
                |---|---|---|---|---|---|---|
                %s

                Allowed calls whose answer does not depend on their arguments (all but `socket`, `socketpair`, `clone`
                and `personality`) are answered from the kernel's per-filter cache after their first use, so a
                system-call-heavy process pays little more than the kernel's seccomp entry check. Under a load
                average well above the core count, differences of up to about 10%% either way are noise (the filter
                cannot make a process faster); run it on a quiet machine for finer numbers.
                """.formatted(BenchReport.machine(), load, instructions, String.join("\n", rows));
    }
}
