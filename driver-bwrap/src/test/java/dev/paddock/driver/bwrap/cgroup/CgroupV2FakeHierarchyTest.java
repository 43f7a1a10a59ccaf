package dev.paddock.driver.bwrap.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limit-writing logic of cgroup v2 against a FAKE hierarchy: plain files in a temp dir shaped like a
 * delegated cgroup2 parent (this host has no v2 memory/pids/cpu controllers to test against for real).
 */
class CgroupV2FakeHierarchyTest {
    @TempDir Path fake;

    private CgroupV2.Group fakeGroup(String id, boolean withControllers) throws Exception {
        Path parent = fake.resolve("paddock");
        Files.createDirectories(parent.resolve(id));
        Files.writeString(fake.resolve("cgroup.subtree_control"), "memory pids cpu");
        Files.writeString(parent.resolve("cgroup.controllers"), "cpu memory pids");
        Files.writeString(parent.resolve("cgroup.subtree_control"), "");
        if (withControllers) {
            for (String f : new String[] {"memory.max", "memory.swap.max", "pids.max", "cpu.max"}) Files.writeString(parent.resolve(id).resolve(f), "max");
        }
        return new CgroupV2(parent).open(id);
    }

    @Test
    void writesMemorySwapPidsAndCpuLimits() throws Exception {
        CgroupV2.Group g = fakeGroup("a", true);
        g.applyLimits(new Limits(64L << 20, 100, 1.5));
        assertThat(Files.readString(g.dir.resolve("memory.max"))).isEqualTo(Long.toString(64L << 20));
        assertThat(Files.readString(g.dir.resolve("memory.swap.max"))).isEqualTo("0");
        assertThat(Files.readString(g.dir.resolve("pids.max"))).isEqualTo("100");
        assertThat(Files.readString(g.dir.resolve("cpu.max"))).isEqualTo("150000 100000");
        assertThat(g.memoryLimitBytes()).isEqualTo(64L << 20);
    }

    @Test
    void failsClosedWhenAControllerIsMissing() throws Exception {
        CgroupV2.Group g = fakeGroup("b", false);
        assertThatThrownBy(() -> g.applyLimits(Limits.DEFAULT)).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("cgroup_controller_missing");
    }

    @Test
    void enablesControllersForChildrenOfTheParent() throws Exception {
        fakeGroup("c", true);
        new CgroupV2(fake.resolve("paddock")).createBare("c");
        // the fake file keeps only the last write; a real one accumulates "+memory", "+pids", "+cpu"
        assertThat(Files.readString(fake.resolve("paddock/cgroup.subtree_control"))).isEqualTo("+cpu");
    }

    @Test
    void readsCountersFromKeyedFiles() throws Exception {
        CgroupV2.Group g = fakeGroup("d", true);
        Files.writeString(g.dir.resolve("memory.events"), "low 0\nhigh 0\nmax 3\noom 2\noom_kill 2\n");
        Files.writeString(g.dir.resolve("cgroup.events"), "populated 1\nfrozen 1\n");
        Files.writeString(g.dir.resolve("cpu.stat"), "usage_usec 1500\nuser_usec 1000\n");
        assertThat(g.oomKills()).isEqualTo(2);
        assertThat(g.frozen()).isTrue();
        assertThat(g.cpuNanos()).isEqualTo(1_500_000);
    }
}
