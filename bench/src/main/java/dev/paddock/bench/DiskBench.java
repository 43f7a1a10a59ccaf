package dev.paddock.bench;

import dev.paddock.driver.bwrap.disk.LoopImageQuota;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a disk limit costs a sandbox's create and end with the bwrap driver's loop images: the first image of a size
 * (mkfs of the template), then each further one (sparse copy + loop mount), and the unmount at the end. Writes
 * its section of docs/BENCHMARKS.md. Needs root and loop devices. Run: {@code scripts/bench DiskBench}.
 */
public final class DiskBench {
    private DiskBench() {}

    public static void main(String[] args) throws Exception {
        Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        int runs = 30;
        List<String> rows = new ArrayList<>();
        Path data = Files.createTempDirectory(Path.of("/tmp"), "pdk-disk");
        try {
            for (long gib : List.of(1L, 10L)) {
                LoopImageQuota quota = new LoopImageQuota(data.resolve("disks-" + gib));
                long bytes = gib << 30;
                long t0 = System.nanoTime();
                Path first = dir(data, "first-" + gib);
                quota.create("first-" + gib, first, bytes);
                double firstMs = (System.nanoTime() - t0) / 1e6;
                quota.delete("first-" + gib, first);
                List<Double> create = new ArrayList<>(), end = new ArrayList<>();
                for (int i = 0; i < runs; i++) {
                    String id = "s" + gib + "-" + i;
                    Path dir = dir(data, id);
                    long a = System.nanoTime();
                    quota.create(id, dir, bytes);
                    long b = System.nanoTime();
                    quota.unmount(id, dir);
                    long c = System.nanoTime();
                    create.add((b - a) / 1e6);
                    end.add((c - b) / 1e6);
                    quota.delete(id, dir);
                }
                rows.add(String.format(Locale.ROOT, "| %d GiB: first image of the size (mkfs of the template + mount) | %.2f ms | |", gib, firstMs));
                rows.add(String.format(Locale.ROOT, "| %d GiB: each further image (sparse copy + loop mount) | %.2f ms | %.2f ms |", gib, pct(create, 50), pct(create, 90)));
                rows.add(String.format(Locale.ROOT, "| %d GiB: unmount at the end | %.2f ms | %.2f ms |", gib, pct(end, 50), pct(end, 90)));
            }
            String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
            String markdown = """
                    ## Disk limits (DiskBench)

                    %s (1-minute load average during the run: %s)

                    What `limits.disk` adds to a bwrap sandbox's create and end, %d runs per size. Each image is a
                    sparse copy of a template made once per size (only its data extents are written), loop-mounted,
                    both in the server's process (`LOOP_CONFIGURE`, `mount(2)`; until 2026-12-02 `cp --sparse=always`
                    and `mount -o loop`, about 20 ms together, and 10 ms to unmount). The create path pays copy +
                    mount (the warm pool hides it); the unmount happens at
                    the end, after the sandbox's processes are gone. An empty image takes 116 KiB (64 MiB limit) to
                    228 KiB (10 GiB limit) of real disk until the sandbox writes.

                    | what | median | p90 |
                    |---|---|---|
                    %s
                    """.formatted(BenchReport.machine(), load, runs, String.join("\n", rows));
            BenchReport.writeSection(repo, "disk", markdown);
            System.out.println(markdown);
        } finally {
            new ProcessBuilder("rm", "-rf", data.toString()).start().waitFor();
        }
    }

    private static Path dir(Path data, String id) throws Exception {
        return Files.createDirectories(data.resolve("sandboxes").resolve(id));
    }

    private static double pct(List<Double> xs, int p) {
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(p / 100.0 * s.size()) - 1));
    }
}
