package dev.paddock.driver.bwrap.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Detection against FAKE mount trees in a temp dir. */
class CgroupDetectorTest {
    @TempDir Path root;

    @Test
    void prefersV1WhenItsControllersAreMountedAndNestsUnderTheOwnCgroup() throws Exception {
        for (String c : List.of("memory", "pids", "cpu", "freezer")) {
            Files.createDirectories(root.resolve(c));
            Files.writeString(root.resolve(c).resolve("cgroup.procs"), "");
        }
        CgroupSystem s = CgroupDetector.detect(root, List.of("4:memory:/process_api/abc", "8:pids:/", "1:cpu:/", "6:freezer:/", "0::/"));
        assertThat(s.version()).isEqualTo("v1");
        assertThat(s.open("sbx").procsFiles()).contains(
                root.resolve("memory/process_api/abc/paddock/sbx/cgroup.procs"), root.resolve("pids/paddock/sbx/cgroup.procs"));
    }

    @Test
    void usesUnifiedV2Otherwise() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpu memory pids");
        CgroupSystem s = CgroupDetector.detect(root, List.of("0::/system.slice/paddock.service"));
        assertThat(s.version()).isEqualTo("v2");
        assertThat(s.open("sbx").procsFiles()).containsExactly(root.resolve("system.slice/paddock.service/paddock/sbx/cgroup.procs"));
    }

    @Test
    void explainsWhenNothingIsUsable() {
        assertThatThrownBy(() -> CgroupDetector.detect(root, List.of("0::/"))).isInstanceOf(PaddockException.class)
                .hasMessageContaining("need cgroup v1 memory, pids, cpu and freezer hierarchies or a cgroup v2 mount");
    }
}
