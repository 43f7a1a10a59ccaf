package dev.paddock.images;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.images.ImageInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Really runs debootstrap against the host's Debian mirror (needs root, network to the mirror, `debootstrap`). */
@Tag("slow")
class DebootstrapBuildTest {
    @TempDir
    Path tmp;

    @Test
    void buildsAMinbaseImageThatIsSafeToShare() throws IOException {
        ImageStore store = new ImageStore(tmp.resolve("images"));
        List<String> progress = new CopyOnWriteArrayList<>();
        long started = System.nanoTime();

        ImageInfo info = store.buildDebian("bookworm-min", BuildSpec.defaults(), progress::add);

        System.out.printf("debootstrap minbase build took %d s%n", (System.nanoTime() - started) / 1_000_000_000L);
        Path rootfs = info.rootfs();
        assertThat(rootfs.resolve("usr/bin/dpkg")).isRegularFile();
        assertThat(info.source()).isEqualTo("debootstrap");
        assertThat(info.ref()).isEqualTo("debian:bookworm");
        assertThat(info.sizeBytes()).isGreaterThan(50L << 20);
        assertThat(progress).anyMatch(line -> line.contains("Base system installed successfully"));
        try (Stream<Path> dev = Files.list(rootfs.resolve("dev"))) {
            assertThat(dev).as("device nodes removed; bwrap provides /dev").isEmpty();
        }
        try (Stream<Path> files = Files.walk(rootfs)) {
            assertThat(files.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).filter(DebootstrapBuildTest::hasSetuid))
                    .as("no setuid/setgid files").isEmpty();
        }
        assertThat(store.find("bookworm-min")).isPresent();
        try (Stream<Path> left = Files.list(tmp.resolve("images"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("bookworm-min");
        }
        store.delete("bookworm-min"); // the store's own delete never follows the rootfs's absolute links
        assertThat(tmp.resolve("images/bookworm-min")).doesNotExist();
    }

    private static boolean hasSetuid(Path p) {
        try {
            return ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 06000) != 0;
        } catch (IOException e) {
            return false;
        }
    }
}
