package dev.paddock.driver.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The fake kubelet's container cgroup (v1, as on this build host): a memory and a pids cgroup per pod, under the
 * test process's own, holding every process of the pod's execs and bound read-only at {@code /sys/fs/cgroup/memory}
 * and {@code /sys/fs/cgroup/pids} in them, as a container runtime's cgroup namespace shows a container its own. The
 * memory limit is the container's. Removed when the pod ends.
 */
final class PodCgroup {
    private final Path memory;
    private final Path pids;

    PodCgroup(String name, long memoryLimit) {
        this.memory = under("memory", name);
        this.pids = under("pids", name);
        try {
            Files.createDirectories(memory);
            Files.createDirectories(pids);
            if (memoryLimit > 0) Files.writeString(memory.resolve("memory.limit_in_bytes"), Long.toString(memoryLimit));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path under(String controller, String name) {
        try {
            String own = Files.readAllLines(Path.of("/proc/self/cgroup")).stream().map(l -> l.split(":", 3))
                    .filter(f -> f.length == 3 && List.of(f[1].split(",")).contains(controller)).map(f -> f[2]).findFirst().orElse("/");
            return Path.of("/sys/fs/cgroup", controller).resolve(own.substring(1)).resolve(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The prefix of a command line that moves the command into the pod's cgroups before it runs. */
    List<String> enter() {
        return new ArrayList<>(List.of("/bin/sh", "-c", "echo $$ > '" + memory.resolve("cgroup.procs") + "' && echo $$ > '"
                + pids.resolve("cgroup.procs") + "' && exec \"$@\"", "enter"));
    }

    /** bwrap's arguments showing the pod its cgroups, read-only. */
    List<String> binds() {
        return List.of("--ro-bind", memory.toString(), "/sys/fs/cgroup/memory", "--ro-bind", pids.toString(), "/sys/fs/cgroup/pids");
    }

    /** Removes the cgroups once their processes (killed by the caller) are gone. */
    void remove() {
        for (int i = 0; i < 100; i++) {
            try {
                if (Files.exists(memory)) Files.delete(memory);
                if (Files.exists(pids)) Files.delete(pids);
                return;
            } catch (IOException busy) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
