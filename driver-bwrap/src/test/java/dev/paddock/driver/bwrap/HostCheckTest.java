package dev.paddock.driver.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A data directory inside a directory closed to other users (root's /root) would fail every create: say so at start. */
class HostCheckTest {
    @TempDir Path dir;

    @Test
    void aParentClosedToOtherUsersIsFoundAndNamedInTheProblems() throws Exception {
        Path home = Files.createDirectory(dir.resolve("home"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        Path data = home.resolve(".paddock");
        assertThat(HostCheck.closedParent(data)).contains(home);
        assertThat(HostCheck.problems(BwrapConfig.defaults(data))).anyMatch(p -> p.contains("cannot pass through " + home) && p.contains("/var/lib/paddock"));

        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx--x--x"));
        assertThat(HostCheck.closedParent(data.resolve("not/yet/there"))).isEmpty();
    }
}
