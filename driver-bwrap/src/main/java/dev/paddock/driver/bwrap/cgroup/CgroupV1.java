package dev.paddock.driver.bwrap.cgroup;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * cgroup v1: one directory per controller hierarchy ({@code memory}, {@code pids}, {@code cpu}, {@code freezer},
 * optionally {@code cpuacct}), each at {@code <mount>/<own cgroup>/paddock/<sandboxId>}.
 */
public final class CgroupV1 implements CgroupSystem {
    static final List<String> REQUIRED = List.of("memory", "pids", "cpu", "freezer");
    static final String OPTIONAL = "cpuacct";

    /** Controller name to the parent directory that holds {@code <sandboxId>} directories. */
    private final Map<String, Path> parents;

    public CgroupV1(Map<String, Path> parents) {
        for (String c : REQUIRED) if (!parents.containsKey(c)) throw new IllegalArgumentException("missing v1 controller " + c);
        this.parents = Map.copyOf(parents);
    }

    @Override
    public String version() {
        return "v1";
    }

    @Override
    public SandboxCgroup create(String sandboxId, Limits limits) {
        Group g = open(sandboxId);
        try {
            for (Path dir : g.dirs.values()) Files.createDirectories(dir);
            Path memory = g.dir("memory");
            CgroupFiles.write(memory.resolve("memory.limit_in_bytes"), Long.toString(limits.memoryBytes()));
            // with swap accounting, also bound memory+swap so the limit cannot be dodged by swapping
            if (Files.exists(memory.resolve("memory.memsw.limit_in_bytes"))) {
                CgroupFiles.write(memory.resolve("memory.memsw.limit_in_bytes"), Long.toString(limits.memoryBytes()));
            }
            CgroupFiles.write(g.dir("pids").resolve("pids.max"), Integer.toString(limits.pids()));
            long period = 100_000;
            CgroupFiles.write(g.dir("cpu").resolve("cpu.cfs_period_us"), Long.toString(period));
            CgroupFiles.write(g.dir("cpu").resolve("cpu.cfs_quota_us"), Long.toString(Math.max(1000, Math.round(limits.cpus() * period))));
            return g;
        } catch (IOException | RuntimeException e) {
            g.remove();
            throw e instanceof RuntimeException r ? r : PaddockException.internal("cannot create cgroup for " + sandboxId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Group restore(Map<String, Path> dirs) {
        for (String c : REQUIRED) if (!dirs.containsKey(c)) throw new IllegalArgumentException("recorded cgroup lacks " + c);
        return new Group(new LinkedHashMap<>(dirs));
    }

    @Override
    public Group open(String sandboxId) {
        Map<String, Path> dirs = new LinkedHashMap<>();
        parents.forEach((c, p) -> dirs.put(c, p.resolve(sandboxId)));
        return new Group(dirs);
    }

    static final class Group implements SandboxCgroup {
        private final Map<String, Path> dirs;

        Group(Map<String, Path> dirs) {
            this.dirs = dirs;
        }

        Path dir(String controller) {
            return dirs.get(controller);
        }

        @Override
        public Map<String, Path> dirs() {
            return Map.copyOf(dirs);
        }

        @Override
        public List<Path> procsFiles() {
            List<Path> out = new ArrayList<>();
            for (Path d : dirs.values()) out.add(d.resolve("cgroup.procs"));
            return out;
        }

        @Override
        public List<Path> selfJoinFiles() {
            List<Path> out = new ArrayList<>();
            for (Path d : dirs.values()) out.add(d.resolve("tasks"));
            return out;
        }

        @Override
        public boolean exists() {
            return Files.isDirectory(dir("freezer"));
        }

        private Path state() {
            return dir("freezer").resolve("freezer.state");
        }

        /**
         * The legacy freezer can stay in FREEZING while a task sits in the kernel; writing FROZEN again retries
         * those tasks, so keep asking until it sticks.
         */
        @Override
        public void freeze() {
            for (int attempt = 0; attempt < 500; attempt++) {
                CgroupFiles.write(state(), "FROZEN");
                for (int i = 0; i < 10; i++) {
                    if (frozen()) return;
                    CgroupFiles.sleep(1);
                }
            }
            CgroupFiles.write(state(), "THAWED");
            throw PaddockException.internal("the cgroup freezer could not freeze " + dir("freezer") + "; the sandbox keeps running", null);
        }

        @Override
        public void thaw() {
            // written again while waiting: a freeze racing with this thaw (a pool refill, a kill) must not leave it frozen
            int[] polls = {0};
            CgroupFiles.await(() -> {
                if (polls[0]++ % 50 == 0) CgroupFiles.write(state(), "THAWED");
                return CgroupFiles.read(state()).equals("THAWED");
            }, "thawed");
        }

        @Override
        public boolean frozen() {
            return CgroupFiles.read(state()).equals("FROZEN");
        }

        /** cgroup.procs leaves out a process that exited and waits to be reaped (pids.current counts it). */
        @Override
        public boolean populated() {
            return !CgroupFiles.pids(dir("freezer").resolve("cgroup.procs")).isEmpty();
        }

        /** v1 has no cgroup.kill: freeze so nothing can fork, SIGKILL every member, thaw so the kills land. */
        @Override
        public void killAll() {
            if (!exists()) return;
            Path procs = dir("freezer").resolve("cgroup.procs");
            try {
                for (int round = 0; round < 20 && !CgroupFiles.pids(procs).isEmpty(); round++) {
                    freeze();
                    CgroupFiles.pids(procs).forEach(CgroupFiles::kill);
                    thaw();
                    for (int i = 0; i < 200 && !CgroupFiles.pids(procs).isEmpty(); i++) CgroupFiles.sleep(i < 50 ? 1 : 5);
                }
            } catch (PaddockException e) {
                if (exists()) throw e; // else another clean-up of the same sandbox removed it meanwhile: nothing is left to kill
            }
        }

        @Override
        public void remove() {
            for (Path d : dirs.values()) CgroupFiles.rmdir(d);
        }

        @Override
        public long oomKills() {
            return CgroupFiles.keyed(dir("memory").resolve("memory.oom_control"), "oom_kill", 0);
        }

        @Override
        public long memoryBytes() {
            return CgroupFiles.readLong(dir("memory").resolve("memory.usage_in_bytes"), -1);
        }

        @Override
        public long memoryLimitBytes() {
            return CgroupFiles.readLong(dir("memory").resolve("memory.limit_in_bytes"), -1);
        }

        @Override
        public int pids() {
            return (int) CgroupFiles.readLong(dir("pids").resolve("pids.current"), -1);
        }

        @Override
        public long cpuNanos() {
            Path acct = dirs.get(OPTIONAL);
            return acct == null ? -1 : CgroupFiles.readLong(acct.resolve("cpuacct.usage"), -1);
        }
    }
}
