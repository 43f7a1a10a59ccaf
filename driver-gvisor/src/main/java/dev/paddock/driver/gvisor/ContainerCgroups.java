package dev.paddock.driver.gvisor;

import dev.paddock.core.MountTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The backstop of a container's end. runsc removes a container's cgroups with it, but a start it did not finish (its
 * {@code runsc run} killed at the start timeout) leaves the sandbox and gofer processes running in them, out of
 * runsc's sight. So whatever still runs in the container's cgroups is killed, and the cgroups are removed.
 */
final class ContainerCgroups {
    private static final int ROUNDS = 50;

    private ContainerCgroups() {}

    /** Kills every process in the cgroups at {@code cgroupsPath} (under each cgroup mount) and removes them. */
    static void killAndRemove(String cgroupsPath) {
        List<Path> dirs = new ArrayList<>();
        for (Path mount : cgroupMounts()) {
            Path dir = mount.resolve(cgroupsPath.substring(1));
            if (Files.isDirectory(dir)) dirs.add(dir);
        }
        if (dirs.isEmpty()) return;
        // a frozen process takes its SIGKILL only once thawed
        for (Path d : dirs) write(d.resolve("freezer.state"), "THAWED");
        for (Path d : dirs) write(d.resolve("cgroup.freeze"), "0");
        for (int round = 0; round < ROUNDS && killAll(dirs); round++) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        for (Path d : dirs) {
            try {
                Files.deleteIfExists(d); // rmdir: an empty cgroup goes with its control files
            } catch (IOException ignored) {
                // still busy (a process the kernel has not released yet): runsc or the next start of the id removes it
            }
        }
    }

    /** Sends SIGKILL to every process listed in the cgroups; whether any was. */
    private static boolean killAll(List<Path> dirs) {
        boolean any = false;
        for (Path d : dirs) {
            for (long pid : procs(d)) {
                any = true;
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        return any;
    }

    private static List<Long> procs(Path dir) {
        try {
            return Files.readAllLines(dir.resolve("cgroup.procs")).stream().filter(l -> !l.isBlank()).map(Long::parseLong).toList();
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            return List.of();
        }
    }

    private static void write(Path file, String value) {
        if (!Files.exists(file)) return;
        try {
            Files.writeString(file, value);
        } catch (IOException ignored) {
            // best effort: the kill rounds still run
        }
    }

    /** Mount points of the cgroup (v1) and cgroup2 filesystems. */
    static List<Path> cgroupMounts() {
        return MountTable.read().stream().filter(m -> m.fsType().equals("cgroup") || m.fsType().equals("cgroup2"))
                .map(MountTable.Mount::point).toList();
    }
}
