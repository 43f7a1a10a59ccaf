package dev.paddock.driver.bwrap;

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
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/** What a restarted host needs to know about a sandbox; kept in its root-only run directory. */
record SandboxMeta(String sandboxId, int uid, int gid, String image, Instant createdAt, Fence fence, Map<String, Path> cgroupDirs) {

    void write(Path file) {
        Properties p = new Properties();
        p.setProperty("sandbox_id", sandboxId);
        p.setProperty("uid", Integer.toString(uid));
        p.setProperty("gid", Integer.toString(gid));
        if (image != null) p.setProperty("image", image);
        p.setProperty("created_at", createdAt.toString());
        p.setProperty("fence_owner", fence.ownerId());
        p.setProperty("fence_generation", Long.toString(fence.generation()));
        cgroupDirs.forEach((c, d) -> p.setProperty("cgroup." + c, d.toString()));
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, null);
        } catch (IOException e) {
            throw PaddockException.internal("cannot write " + file + ": " + e.getMessage(), e);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw PaddockException.internal("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Empty when the file is missing or unreadable (a half-created sandbox). */
    static Optional<SandboxMeta> read(Path file) {
        if (!Files.isRegularFile(file)) return Optional.empty();
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
            Map<String, Path> cgroups = new TreeMap<>();
            for (String k : p.stringPropertyNames()) if (k.startsWith("cgroup.")) cgroups.put(k.substring(7), Path.of(p.getProperty(k)));
            return Optional.of(new SandboxMeta(p.getProperty("sandbox_id"),
                    Integer.parseInt(p.getProperty("uid")), Integer.parseInt(p.getProperty("gid")),
                    p.getProperty("image"), Instant.parse(p.getProperty("created_at")),
                    new Fence(p.getProperty("fence_owner"), Long.parseLong(p.getProperty("fence_generation"))), cgroups));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
