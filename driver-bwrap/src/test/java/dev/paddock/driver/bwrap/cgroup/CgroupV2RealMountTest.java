package dev.paddock.driver.bwrap.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.testing.Prerequisites;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * cgroup v2 on a real cgroup2 mount made for the test. On hybrid hosts the memory/pids/cpu controllers stay in
 * v1, so this proves the controller-independent parts: create, join, freeze/thaw, kill, remove.
 */
@Tag("bwrap")
class CgroupV2RealMountTest {
    Path mount;

    @BeforeEach
    void mountCgroup2() throws Exception {
        mount = Files.createTempDirectory("cg2");
        Process p = new ProcessBuilder("mount", "-t", "cgroup2", "none", mount.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        Prerequisites.require(p.waitFor() == 0, "cannot mount cgroup2 here: " + out);
    }

    @AfterEach
    void unmount() throws Exception {
        new ProcessBuilder("umount", mount.toString()).start().waitFor();
        Files.deleteIfExists(mount);
    }

    @Test
    void freezesThawsKillsAndRemovesARealGroup() throws Exception {
        CgroupV2 v2 = new CgroupV2(mount.resolve("paddock"));
        CgroupV2.Group g = v2.createBare("sbx1");
        assertThat(g.exists()).isTrue();
        Process sleeper = new ProcessBuilder("sleep", "1000").start();
        CgroupFiles.write(g.procsFiles().getFirst(), Long.toString(sleeper.pid()));
        assertThat(CgroupFiles.pids(g.procsFiles().getFirst())).containsExactly(sleeper.pid());

        g.freeze();
        assertThat(g.frozen()).isTrue();
        assertThat(Files.readString(Path.of("/proc/" + sleeper.pid() + "/status"))).containsPattern("State:\\s+[ST]");
        g.thaw();
        assertThat(g.frozen()).isFalse();

        g.killAll();
        assertThat(sleeper.waitFor()).isEqualTo(137);
        assertThat(CgroupFiles.keyed(mount.resolve("paddock/sbx1/cgroup.events"), "populated", -1)).isZero();
        g.remove();
        assertThat(g.exists()).isFalse();
    }
}
