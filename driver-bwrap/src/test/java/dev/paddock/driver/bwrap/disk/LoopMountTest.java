package dev.paddock.driver.bwrap.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.workspace.Errno;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Real loop devices and real ext4 mounts (the tests run as root). */
class LoopMountTest {
    private Path root;
    private Path image;
    private Path dir;

    @BeforeEach
    void makeImage() throws Exception {
        root = Files.createTempDirectory(Path.of("/tmp"), "pdloop");
        image = root.resolve("disk.img");
        dir = Files.createDirectory(root.resolve("mnt"));
        try (var f = new RandomAccessFile(image.toFile(), "rw")) {
            f.setLength(16L << 20);
        }
        run("mkfs.ext4", "-q", "-F", "-O", "^has_journal", image.toString());
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (LoopImageQuota.isMountPoint(dir)) LoopMount.detach(dir);
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void mountsTheImageAndTheDeviceGoesAwayWithTheMount() throws Exception {
        LoopMount.mountExt4(image, dir, "noinit_itable");

        assertThat(LoopImageQuota.isMountPoint(dir)).isTrue();
        assertThat(devicesBacking(image)).hasSize(1);
        Files.writeString(dir.resolve("f"), "on the image");
        assertThat(mountOptions(dir)).contains("nosuid").contains("nodev");

        assertThat(LoopMount.unmount(dir)).isTrue();
        assertThat(LoopImageQuota.isMountPoint(dir)).isFalse();
        assertThat(devicesBacking(image)).as("auto-clear detached the device").isEmpty();

        LoopMount.mountExt4(image, dir, "noinit_itable");
        assertThat(Files.readString(dir.resolve("f"))).isEqualTo("on the image");
    }

    @Test
    void aFailedMountLeavesNoDeviceAttached() throws Exception {
        Path notExt4 = root.resolve("zeros.img");
        try (var f = new RandomAccessFile(notExt4.toFile(), "rw")) {
            f.setLength(4L << 20);
        }

        assertThatThrownBy(() -> LoopMount.mountExt4(notExt4, dir, "noinit_itable"))
                .isInstanceOf(Errno.class).hasMessageContaining("mount failed");
        assertThat(LoopImageQuota.isMountPoint(dir)).isFalse();
        assertThat(devicesBacking(notExt4)).isEmpty();
    }

    @Test
    void aBusyMountIsNotUnmountedButCanBeDetached() throws Exception {
        LoopMount.mountExt4(image, dir, "noinit_itable");
        Files.writeString(dir.resolve("open"), "x");
        try (InputStream held = Files.newInputStream(dir.resolve("open"))) {
            assertThat(LoopMount.unmount(dir)).isFalse();
            assertThat(LoopImageQuota.isMountPoint(dir)).isTrue();
            LoopMount.detach(dir);
            assertThat(LoopImageQuota.isMountPoint(dir)).isFalse();
            assertThat(held.read()).as("the open file stays readable").isEqualTo('x');
        }
    }

    /** The loop devices whose backing file is {@code file}, read from sysfs. */
    private static List<String> devicesBacking(Path file) throws IOException {
        String wanted = file.toRealPath().toString();
        try (Stream<Path> devices = Files.list(Path.of("/sys/block"))) {
            return devices.filter(d -> d.getFileName().toString().startsWith("loop"))
                    .filter(d -> {
                        try {
                            Path backing = d.resolve("loop/backing_file");
                            return Files.exists(backing) && Files.readString(backing).trim().equals(wanted);
                        } catch (IOException e) {
                            return false; // detached meanwhile
                        }
                    })
                    .map(d -> d.getFileName().toString()).toList();
        }
    }

    private static String mountOptions(Path dir) throws IOException {
        String target = " " + dir.toRealPath() + " ";
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                .filter(l -> l.contains(target)).findFirst().orElse("");
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
    }
}
