package dev.paddock.host.nodes;

import dev.paddock.core.nodes.NodeCapacity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** What this machine has free, read from /proc: available memory and process ids. Unknown values read as 0. */
final class CapacityProbe {
    private CapacityProbe() {}

    static NodeCapacity read(int sandboxes) {
        return new NodeCapacity(memoryAvailable(), pidsFree(), sandboxes);
    }

    private static long memoryAvailable() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
            return lines.filter(l -> l.startsWith("MemAvailable:")).findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).orElse(0L);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long pidsFree() {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            long max = Long.parseLong(Files.readString(Path.of("/proc/sys/kernel/pid_max")).strip());
            long used = procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).count();
            return Math.max(0, max - used);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
