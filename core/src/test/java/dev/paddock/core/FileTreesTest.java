package dev.paddock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTreesTest {
    @Test
    void deletesTheTreeButNotWhatALinkPointsAt(@TempDir Path dir) throws Exception {
        Path outside = Files.writeString(dir.resolve("outside.txt"), "kept");
        Path root = Files.createDirectories(dir.resolve("root/a/b"));
        Files.writeString(root.resolve("f.txt"), "x");
        Files.createSymbolicLink(dir.resolve("root/a/link"), outside);
        Files.createSymbolicLink(dir.resolve("root/dirlink"), dir);
        FileTrees.delete(dir.resolve("root"));
        assertThat(dir.resolve("root")).doesNotExist();
        assertThat(outside).hasContent("kept");
        FileTrees.delete(dir.resolve("root")); // nothing there: nothing to do
    }

    @Test
    void twoCleanUpsOfOneTreeAtOnceBothSucceed(@TempDir Path dir) throws Exception {
        for (int round = 0; round < 30; round++) {
            Path root = dir.resolve("tree" + round);
            for (int i = 0; i < 40; i++) Files.writeString(Files.createDirectories(root.resolve("d" + i)).resolve("f"), "x");
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
                try {
                    FileTrees.delete(root);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            FileTrees.delete(root);
            other.join();
            assertThat(root).doesNotExist();
        }
    }
}
