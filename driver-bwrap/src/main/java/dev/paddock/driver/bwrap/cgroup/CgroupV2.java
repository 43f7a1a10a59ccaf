package dev.paddock.driver.bwrap.cgroup;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * cgroup v2 (unified): one directory {@code <parent>/<sandboxId>}. The parent must be allowed to enable the
 * memory, pids and cpu controllers for its children, which v2 only permits when the parent holds no processes
 * itself (a delegated, empty cgroup such as the root or a systemd {@code Delegate=yes} slice).
 */
public final class CgroupV2 implements CgroupSystem {
    static final List<String> CONTROLLERS = List.of("memory", "pids", "cpu");

    private final Path parent;

    /** {@code parent} is the directory holding {@code <sandboxId>} directories, e.g. {@code /sys/fs/cgroup/paddock}. */
    public CgroupV2(Path parent) {
        this.parent = parent;
    }

    @Override
    public String version() {
        return "v2";
    }

    @Override
    public SandboxCgroup create(String sandboxId, Limits limits) {
        Group g = createBare(sandboxId);
        try {
            g.applyLimits(limits);
            return g;
        } catch (RuntimeException e) {
            g.remove();
            throw e;
        }
    }

    /** The directory without limits (tests on hierarchies without controllers use this). */
    Group createBare(String sandboxId) {
        try {
            Files.createDirectories(parent);
            enableControllers();
            Group g = open(sandboxId);
            Files.createDirectories(g.dir);
            return g;
        } catch (IOException e) {
            throw PaddockException.internal("cannot create cgroup for " + sandboxId + " under " + parent + ": " + e.getMessage(), e);
        }
    }

    private void enableControllers() {
        // best effort one level up: works when that level holds no processes itself (e.g. the root cgroup)
        String above = CgroupFiles.read(parent.getParent().resolve("cgroup.subtree_control"));
        for (String c : CONTROLLERS) {
            if ((" " + above + " ").contains(" " + c + " ")) continue;
            try { CgroupFiles.write(parent.getParent().resolve("cgroup.subtree_control"), "+" + c); } catch (PaddockException ignored) { }
        }
        String available = CgroupFiles.read(parent.resolve("cgroup.controllers"));
        String enabled = CgroupFiles.read(parent.resolve("cgroup.subtree_control"));
        for (String c : CONTROLLERS) {
            if (!available.contains(c)) continue; // missing ones fail closed when their limit file is written
            if ((" " + enabled + " ").contains(" " + c + " ")) continue;
            try {
                CgroupFiles.write(parent.resolve("cgroup.subtree_control"), "+" + c);
            } catch (PaddockException e) {
                throw new PaddockException(ErrorCode.CGROUP_NOT_DELEGATED,
                        "cannot enable the " + c + " controller in " + parent + " (cgroup v2 allows it only in a cgroup without processes); "
                                + "run Paddock in a delegated cgroup or set the cgroup parent to an empty one", e);
            }
        }
    }

    @Override
    public Group restore(Map<String, Path> dirs) {
        if (!dirs.containsKey("unified")) throw new IllegalArgumentException("recorded cgroup lacks the unified directory");
        return new Group(dirs.get("unified"));
    }

    @Override
    public Group open(String sandboxId) {
        return new Group(parent.resolve(sandboxId));
    }

    static final class Group implements SandboxCgroup {
        final Path dir;

        Group(Path dir) {
            this.dir = dir;
        }

        void applyLimits(Limits limits) {
            requireFile("memory.max");
            CgroupFiles.write(dir.resolve("memory.max"), Long.toString(limits.memoryBytes()));
            if (Files.exists(dir.resolve("memory.swap.max"))) CgroupFiles.write(dir.resolve("memory.swap.max"), "0");
            requireFile("pids.max");
            CgroupFiles.write(dir.resolve("pids.max"), Integer.toString(limits.pids()));
            requireFile("cpu.max");
            long period = 100_000;
            CgroupFiles.write(dir.resolve("cpu.max"), Math.max(1000, Math.round(limits.cpus() * period)) + " " + period);
        }

        private void requireFile(String name) {
            if (!Files.exists(dir.resolve(name))) {
                throw new PaddockException(ErrorCode.CGROUP_CONTROLLER_MISSING,
                        "the cgroup v2 hierarchy does not offer " + name + " in " + dir + "; enable the "
                                + name.substring(0, name.indexOf('.')) + " controller for Paddock's cgroup parent");
            }
        }

        @Override
        public Map<String, Path> dirs() {
            return Map.of("unified", dir);
        }

        @Override
        public List<Path> procsFiles() {
            return List.of(dir.resolve("cgroup.procs"));
        }

        /** v2 has one membership file; "0" there moves the writer's whole (single-threaded) process. */
        @Override
        public List<Path> selfJoinFiles() {
            return procsFiles();
        }

        @Override
        public boolean exists() {
            return Files.isDirectory(dir);
        }

        @Override
        public void freeze() {
            CgroupFiles.write(dir.resolve("cgroup.freeze"), "1");
            CgroupFiles.await(this::frozen, "frozen");
        }

        @Override
        public void thaw() {
            CgroupFiles.write(dir.resolve("cgroup.freeze"), "0");
            CgroupFiles.await(() -> !frozen(), "thawed");
        }

        @Override
        public boolean frozen() {
            return CgroupFiles.keyed(dir.resolve("cgroup.events"), "frozen", 0) == 1;
        }

        /** "populated" drops when the last process exits, not when it is reaped. */
        @Override
        public boolean populated() {
            return CgroupFiles.keyed(dir.resolve("cgroup.events"), "populated", 0) == 1;
        }

        @Override
        public void killAll() {
            if (!exists()) return;
            if (Files.exists(dir.resolve("cgroup.kill"))) {
                CgroupFiles.write(dir.resolve("cgroup.kill"), "1");
            } else { // kernels before 5.14: freeze, kill each member, thaw
                freeze();
                CgroupFiles.pids(dir.resolve("cgroup.procs")).forEach(CgroupFiles::kill);
                thaw();
            }
            CgroupFiles.await(() -> CgroupFiles.keyed(dir.resolve("cgroup.events"), "populated", 0) == 0, "empty");
        }

        @Override
        public void remove() {
            CgroupFiles.rmdir(dir);
        }

        @Override
        public long oomKills() {
            return CgroupFiles.keyed(dir.resolve("memory.events"), "oom_kill", 0);
        }

        @Override
        public long memoryBytes() {
            return CgroupFiles.readLong(dir.resolve("memory.current"), -1);
        }

        @Override
        public long memoryLimitBytes() {
            return CgroupFiles.readLong(dir.resolve("memory.max"), -1);
        }

        @Override
        public int pids() {
            return (int) CgroupFiles.readLong(dir.resolve("pids.current"), -1);
        }

        @Override
        public long cpuNanos() {
            long usec = CgroupFiles.keyed(dir.resolve("cpu.stat"), "usage_usec", -1);
            return usec < 0 ? -1 : usec * 1000;
        }
    }
}
