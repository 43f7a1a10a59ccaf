package dev.paddock.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Throwaway data directories with short paths directly under /tmp: drivers put unix sockets in them (sun_path is
 * 108 bytes) and sandbox uids must be able to reach them.
 */
final class DataDirs {
    private DataDirs() {}

    static Path create() throws IOException {
        return Files.createTempDirectory(Path.of("/tmp"), "pdk");
    }

    /** An empty directory at {@code dir}, made with its parents. */
    static Path emptyDir(Path dir) throws IOException {
        return Files.createDirectories(dir);
    }

    static void deleteQuietly(Path dir) {
        if (dir == null) return;
        try (Stream<Path> tree = Files.walk(dir)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // a busy mount point or a file still in use; /tmp is cleaned eventually
                }
            }
        } catch (IOException ignored) {
            // already gone
        }
    }
}
