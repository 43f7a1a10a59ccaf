package dev.paddock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class MountTableTest {
    @Test
    void eachLineGivesItsMountPointUnescapedAndItsFilesystemType() {
        List<MountTable.Mount> mounts = MountTable.parse(List.of(
                "30 23 0:26 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:12 - cgroup cgroup rw,pids",
                "61 1 8:1 /data /mnt/with\\040space\\134x rw,relatime - ext4 /dev/sda1 rw",
                "not a mount line"));
        assertThat(mounts).containsExactly(new MountTable.Mount(Path.of("/sys/fs/cgroup/pids"), "cgroup"),
                new MountTable.Mount(Path.of("/mnt/with space\\x"), "ext4"));
    }

    @Test
    void thisProcessHasARootMount() {
        assertThat(MountTable.read()).extracting(MountTable.Mount::point).contains(Path.of("/"));
    }
}
