package dev.paddock.driver.bwrap.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SparseTemplateTest {
    private Path root;

    @BeforeEach
    void dir() throws Exception {
        root = Files.createTempDirectory(Path.of("/tmp"), "pdsparse");
    }

    @AfterEach
    void cleanUp() throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void aCopyHasTheSameBytesAndKeepsTheHoles() throws Exception {
        Path template = root.resolve("t.img");
        long size = 64L << 20;
        try (RandomAccessFile f = new RandomAccessFile(template.toFile(), "rw")) {
            f.setLength(size);
            f.seek(4096);
            f.write("first extent".getBytes());
            f.seek(20L << 20);
            f.write(new byte[100_000]);
            f.seek(20L << 20);
            f.write("second extent".getBytes());
        }
        Path copy = root.resolve("c.img");

        SparseTemplate.of(template).copyTo(copy);

        assertThat(Files.size(copy)).isEqualTo(size);
        assertThat(Files.mismatch(template, copy)).isEqualTo(-1L);
        assertThat(allocatedBytes(copy)).as("holes stay holes").isLessThan(1L << 20);
    }

    @Test
    void aTemplateEndingInDataIsCopiedToItsLastByte() throws Exception {
        Path template = root.resolve("t.img");
        try (RandomAccessFile f = new RandomAccessFile(template.toFile(), "rw")) {
            f.setLength(8L << 20);
            f.seek((8L << 20) - 5);
            f.write("tail!".getBytes());
        }
        Path copy = root.resolve("c.img");

        SparseTemplate.of(template).copyTo(copy);

        assertThat(Files.mismatch(template, copy)).isEqualTo(-1L);
    }

    @Test
    void anExistingTargetIsNotOverwritten() throws Exception {
        Path template = root.resolve("t.img");
        Files.write(template, new byte[8192]);
        Path copy = Files.writeString(root.resolve("c.img"), "mine");

        assertThatThrownBy(() -> SparseTemplate.of(template).copyTo(copy)).isInstanceOf(FileAlreadyExistsException.class);
        assertThat(Files.readString(copy)).isEqualTo("mine");
    }

    private static long allocatedBytes(Path file) throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).start();
        String[] out = new String(p.getInputStream().readAllBytes()).trim().split(" ");
        p.waitFor();
        return Long.parseLong(out[0]) * Long.parseLong(out[1]);
    }
}
