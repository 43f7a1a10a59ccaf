package dev.paddock.driver.bwrap.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.paddock.core.spi.Limits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** cgroup v1 on this host's real hierarchies. */
@Tag("bwrap")
class CgroupV1Test {
    @Test
    void createsWithLimitsFreezesKillsAndRemoves() throws Exception {
        CgroupSystem sys = CgroupDetector.detect(Path.of("/sys/fs/cgroup"));
        assumeTrue(sys instanceof CgroupV1, "this host has no cgroup v1 hierarchies");
        String id = "v1test-" + UUID.randomUUID().toString().substring(0, 8);
        CgroupV1.Group g = (CgroupV1.Group) sys.create(id, new Limits(48L << 20, 40, 0.5));
        try {
            assertThat(CgroupFiles.read(g.dir("memory").resolve("memory.limit_in_bytes"))).isEqualTo(Long.toString(48L << 20));
            assertThat(CgroupFiles.read(g.dir("pids").resolve("pids.max"))).isEqualTo("40");
            assertThat(CgroupFiles.read(g.dir("cpu").resolve("cpu.cfs_quota_us"))).isEqualTo("50000");
            if (Files.exists(g.dir("memory").resolve("memory.memsw.limit_in_bytes"))) {
                assertThat(CgroupFiles.read(g.dir("memory").resolve("memory.memsw.limit_in_bytes"))).isEqualTo(Long.toString(48L << 20));
            }
            Process sleeper = new ProcessBuilder("sleep", "1000").start();
            for (Path procs : g.procsFiles()) CgroupFiles.write(procs, Long.toString(sleeper.pid()));
            assertThat(g.pids()).isEqualTo(1);
            g.freeze();
            assertThat(g.frozen()).isTrue();
            g.thaw();
            assertThat(g.frozen()).isFalse();
            g.killAll();
            assertThat(sleeper.waitFor()).isEqualTo(137);
            assertThat(g.oomKills()).isZero();
        } finally {
            g.killAll();
            g.remove();
        }
        assertThat(g.exists()).isFalse();
        assertThat(g.dir("memory")).doesNotExist();
    }

    @Test
    void aProcessJoinsByWritingZeroToTheTasksFilesAndItsChildrenFollow() throws Exception {
        CgroupSystem sys = CgroupDetector.detect(Path.of("/sys/fs/cgroup"));
        assumeTrue(sys instanceof CgroupV1, "this host has no cgroup v1 hierarchies");
        String id = "v1join-" + UUID.randomUUID().toString().substring(0, 8);
        CgroupV1.Group g = (CgroupV1.Group) sys.create(id, new Limits(48L << 20, 40, 0.5));
        try {
            StringBuilder script = new StringBuilder();
            for (Path f : g.selfJoinFiles()) {
                assertThat(f.getFileName().toString()).isEqualTo("tasks");
                script.append("echo 0 > ").append(f).append("; ");
            }
            Process p = new ProcessBuilder("/bin/sh", "-c", script + "cat /proc/self/cgroup").start();
            String cgroups = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.waitFor()).isZero();
            for (String c : java.util.List.of("memory", "pids", "cpu", "freezer")) {
                assertThat(cgroups.lines()).as(c).anyMatch(l -> java.util.List.of(l.split(":", 3)[1].split(",")).contains(c) && l.endsWith("/paddock/" + id));
            }
        } finally {
            g.killAll();
            g.remove();
        }
    }
}
