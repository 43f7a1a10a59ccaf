package dev.paddock.driver.docker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * How many processes of a container the kernel killed for memory: the {@code oom_kill} count of the memory cgroup
 * the container's first process is in (cgroup v1 {@code memory.oom_control}, v2 {@code memory.events}), read on
 * the host. Where it cannot be read (another cgroup layout) the count stays 0 and exec results are not flagged.
 */
final class OomCounter implements LongSupplier {
    private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");
    private final Path file;

    private OomCounter(Path file) {
        this.file = file;
    }

    static OomCounter ofProcess(long pid) {
        return new OomCounter(pid > 0 ? locate(pid).orElse(null) : null);
    }

    private static Optional<Path> locate(long pid) {
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"));
        } catch (IOException e) {
            return Optional.empty();
        }
        for (String line : lines) {
            String[] f = line.split(":", 3);
            if (f.length < 3) continue;
            String rel = f[2].startsWith("/") ? f[2].substring(1) : f[2];
            if (List.of(f[1].split(",")).contains("memory")) {
                Path p = CGROUP_ROOT.resolve("memory").resolve(rel).resolve("memory.oom_control");
                if (Files.isReadable(p)) return Optional.of(p);
            }
            if (f[0].equals("0") && f[1].isEmpty()) {
                Path p = CGROUP_ROOT.resolve(rel).resolve("memory.events");
                if (Files.isReadable(p)) return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    @Override
    public long getAsLong() {
        if (file == null) return 0;
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith("oom_kill ")) return Long.parseLong(line.substring(9).trim());
            }
        } catch (IOException | NumberFormatException e) {
            // the container is gone: nothing more is counted
        }
        return 0;
    }
}
