package dev.paddock.driver.bwrap.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The copy of the template made ahead for the next create (real loop devices and mounts; needs root). */
class LoopImageQuotaSpareTest {
    private static final long SIZE = 64L << 20;
    private Path data;
    private Path images;

    @BeforeEach
    void start() throws IOException {
        assumeThat(LoopImageQuota.problem()).as("loop devices on this host").isEmpty();
        data = Files.createTempDirectory(Path.of("/tmp"), "pdk-spare");
        images = data.resolve("disks");
    }

    @AfterEach
    void stop() throws IOException {
        if (data == null) return;
        try (Stream<Path> dirs = Files.list(data)) {
            for (Path d : dirs.toList()) if (LoopImageQuota.isMountPoint(d)) new LoopImageQuota(images).unmount(d.getFileName().toString(), d);
        }
        try (Stream<Path> tree = Files.walk(data)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    @Test
    void aCreateLeavesACopyForTheNextWhichTakesItAndGetsAWorkingEmptyFilesystem() throws IOException {
        LoopImageQuota first = new LoopImageQuota(images);
        first.create("a", dir("a"), SIZE);
        first.close(); // waits for the copy made ahead
        Path spare = images.resolve("spare-" + SIZE + ".img");
        assertThat(spare).isRegularFile();

        LoopImageQuota second = new LoopImageQuota(images);
        second.close(); // no copy ahead this time: the spare must be gone after the create, taken by it
        second.create("b", dir("b"), SIZE);

        assertThat(spare).doesNotExist();
        assertThat(LoopImageQuota.isMountPoint(dir("b"))).isTrue();
        assertThat(dir("b")).isEmptyDirectory();
        Files.writeString(dir("b").resolve("f"), "b's own");
        assertThat(Files.readString(dir("b").resolve("f"))).isEqualTo("b's own");
        assertThat(Files.getFileStore(dir("b")).getTotalSpace()).isLessThanOrEqualTo(SIZE);
    }

    private Path dir(String id) throws IOException {
        return Files.createDirectories(data.resolve(id));
    }
}
