package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Hands out one host uid per live sandbox. A claim is the file {@code uids/<uid>} holding the sandbox id, created
 * atomically (O_EXCL), so two drivers on one data directory, or a restarted one, never give a live uid twice.
 */
final class UidAllocator {
    private final Path dir;
    private final int base;
    private final int count;

    UidAllocator(Path dir, int base, int count) {
        this.dir = dir;
        this.base = base;
        this.count = count;
    }

    int allocate(String sandboxId) {
        try {
            Files.createDirectories(dir);
            int start = Math.floorMod(sandboxId.hashCode(), count); // spread ids; any free uid will do
            for (int i = 0; i < count; i++) {
                int uid = base + (start + i) % count;
                try {
                    Files.writeString(dir.resolve(Integer.toString(uid)), sandboxId, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE);
                    return uid;
                } catch (FileAlreadyExistsException taken) {
                    // next
                }
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot record a sandbox uid in " + dir + ": " + e.getMessage(), e);
        }
        throw new PaddockException(ErrorType.UNAVAILABLE, "uid_range_exhausted", "all " + count + " sandbox uids from " + base + " are in use; terminate sandboxes or widen the uid range");
    }

    /** Frees the uid if it still belongs to this sandbox. */
    void release(int uid, String sandboxId) {
        Path claim = dir.resolve(Integer.toString(uid));
        try {
            if (Files.exists(claim) && Files.readString(claim, StandardCharsets.UTF_8).equals(sandboxId)) Files.delete(claim);
        } catch (IOException ignored) {
            // a leftover claim only keeps one uid out of use
        }
    }
}
