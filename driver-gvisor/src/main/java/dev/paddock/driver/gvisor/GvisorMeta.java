package dev.paddock.driver.gvisor;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * What a restarted host needs to know about a sandbox; kept in its root-only run directory. {@code overlay}: the
 * sandbox runs with runsc's writable in-memory root (an image with a writable root), which every runsc call repeats.
 */
record GvisorMeta(String sandboxId, String image, boolean overlay, Instant createdAt, Fence fence) {

    void write(Path file) {
        Properties p = new Properties();
        p.setProperty("sandbox_id", sandboxId);
        if (image != null) p.setProperty("image", image);
        p.setProperty("overlay", Boolean.toString(overlay));
        p.setProperty("created_at", createdAt.toString());
        p.setProperty("fence_owner", fence.ownerId());
        p.setProperty("fence_generation", Long.toString(fence.generation()));
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                p.store(w, null);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw PaddockException.internal("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Empty when the file is missing or unreadable (a half-created sandbox). */
    static Optional<GvisorMeta> read(Path file) {
        if (!Files.isRegularFile(file)) return Optional.empty();
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
            return Optional.of(new GvisorMeta(p.getProperty("sandbox_id"), p.getProperty("image"),
                    Boolean.parseBoolean(p.getProperty("overlay")), Instant.parse(p.getProperty("created_at")),
                    new Fence(p.getProperty("fence_owner"), Long.parseLong(p.getProperty("fence_generation")))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
