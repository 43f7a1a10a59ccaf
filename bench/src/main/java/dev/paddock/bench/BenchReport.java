package dev.paddock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Locale;

/**
 * docs/BENCHMARKS.md is shared by every harness: each one owns a section between
 * {@code <!-- bench:NAME -->} and {@code <!-- /bench:NAME -->} and rewrites only that, with the machine and date.
 */
public final class BenchReport {
    private static final String HEADER = """
            # Benchmarks

            Each section is written by its harness under `bench/` (run them all with `scripts/bench`), with the machine
            and date of the run. Every number is measured side by side with a baseline in the same run; nothing here is
            a unit test, and no test asserts a time.
            """;

    private BenchReport() {}

    public static void writeSection(Path repo, String name, String markdown) throws IOException {
        Path file = repo.resolve("docs/BENCHMARKS.md");
        String doc = Files.exists(file) ? Files.readString(file) : HEADER;
        if (!doc.startsWith("# Benchmarks")) doc = HEADER;
        String open = "<!-- bench:" + name + " -->", close = "<!-- /bench:" + name + " -->";
        String section = open + "\n" + markdown.strip() + "\n" + close;
        int a = doc.indexOf(open), b = doc.indexOf(close);
        doc = a >= 0 && b > a ? doc.substring(0, a) + section + doc.substring(b + close.length())
                : doc.stripTrailing() + "\n\n" + section + "\n";
        Files.writeString(file, doc);
    }

    /** "date, CPU, cores, RAM, kernel" for a section's first line. */
    public static String machine() throws IOException {
        String cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown CPU");
        long memKb = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal:"))
                .findFirst().map(l -> Long.parseLong(l.replaceAll("\\D", ""))).orElse(0L);
        return String.format(Locale.ROOT, "%s · %s, %d cores, %.0f GiB RAM, Linux %s", LocalDate.now(), cpu,
                Runtime.getRuntime().availableProcessors(), memKb / 1024.0 / 1024.0, System.getProperty("os.version"));
    }

    /** A harness's main: runs it, prints what failed, and exits (its servers' and streams' threads do not end by themselves). */
    public static void runAndExit(Harness harness) {
        int status = 0;
        try {
            harness.run();
        } catch (Exception | AssertionError e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    public interface Harness {
        void run() throws Exception;
    }

    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    public static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
    }
}
