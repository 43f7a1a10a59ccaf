package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.CapacityExhaustedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Set;

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
                    Files.writeString(dir.resolve(Integer.toString(uid)), sandboxId + "\n" + ProcessHandle.current().pid(), StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                    return uid;
                } catch (FileAlreadyExistsException taken) {
                    // next
                }
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot record a sandbox uid in " + dir + ": " + e.getMessage(), e);
        }
        throw new CapacityExhaustedException(ErrorCode.UID_RANGE_EXHAUSTED, "all " + count + " sandbox uids from " + base + " are in use; terminate sandboxes or widen the uid range");
    }

    /**
     * Frees the claims of sandboxes that do not exist — a process killed mid-create claimed a uid and never started
     * the sandbox: a claim whose sandbox is not in {@code live} and whose claiming process is gone (claims without a
     * process, from older versions, once older than a minute).
     */
    int reclaimStale(Set<String> live) {
        int freed = 0;
        Instant oldEnough = Instant.now().minusSeconds(60);
        try (var claims = Files.list(dir)) {
            for (Path claim : claims.toList()) {
                try {
                    String[] lines = Files.readString(claim, StandardCharsets.UTF_8).split("\n");
                    if (live.contains(lines[0].strip())) continue;
                    boolean claimerGone = lines.length > 1
                            ? ProcessHandle.of(Long.parseLong(lines[1].strip())).map(p -> !p.isAlive()).orElse(true)
                            : Files.getLastModifiedTime(claim).toInstant().isBefore(oldEnough);
                    if (claimerGone && Files.deleteIfExists(claim)) freed++;
                } catch (IOException | NumberFormatException unreadable) {
                    // released meanwhile, or not ours to judge
                }
            }
        } catch (NoSuchFileException none) {
            return 0;
        } catch (IOException e) {
            throw PaddockException.internal("cannot read the sandbox uid claims in " + dir + ": " + e.getMessage(), e);
        }
        return freed;
    }

    /** Frees the uid if it still belongs to this sandbox. */
    void release(int uid, String sandboxId) {
        Path claim = dir.resolve(Integer.toString(uid));
        try {
            if (Files.exists(claim) && Files.readString(claim, StandardCharsets.UTF_8).split("\n")[0].equals(sandboxId)) Files.delete(claim);
        } catch (IOException ignored) {
            // a leftover claim only keeps one uid out of use
        }
    }
}
