package dev.paddock.driver.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The fake kubelet's storage provisioner for sized claims: a sparse ext4 image of the claim's requested size,
 * loop-mounted (nosuid, nodev) over the claim's host directory, so writes past the size fail with ENOSPC inside the
 * pod, as on a volume a real provisioner made. Needs root and loop devices; everything is unmounted on close.
 */
final class ClaimDisks implements AutoCloseable {
    private final Map<Path, Path> mounted = new ConcurrentHashMap<>();

    /** Makes {@code dir} a filesystem of {@code bytes} once; a claim bound before (a resumed pod's) stays as it is. */
    synchronized void bound(Path dir, long bytes) {
        if (mounted.containsKey(dir)) return;
        Path image = dir.resolveSibling(dir.getFileName() + ".img");
        try {
            Files.createDirectories(dir);
            Files.deleteIfExists(image);
            run("truncate", "-s", Long.toString(bytes), image.toString());
            run("mkfs.ext4", "-q", "-F", "-m", "0", "-E", "root_owner=0:0", image.toString());
            run("mount", "-o", "loop,nosuid,nodev", image.toString(), dir.toString());
            mounted.put(dir, image);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(command[0] + " did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) throw new IOException(String.join(" ", List.of(command)) + " failed: " + out.trim());
    }

    @Override
    public synchronized void close() {
        mounted.forEach((dir, image) -> {
            try {
                run("umount", "-l", dir.toString());
                Files.deleteIfExists(image);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        mounted.clear();
    }
}
