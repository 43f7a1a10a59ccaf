package dev.paddock.driver.bwrap.disk;

import java.nio.file.Path;

/**
 * How the bwrap driver bounds what one sandbox can store: a filesystem of the sandbox's own, of a fixed size, mounted
 * over its directory ({@code sandboxes/<id>}, which holds its workspace and outputs), so a write past the limit fails
 * inside the sandbox with ENOSPC. Implementations must be idempotent: a host restart, or a host reboot that dropped
 * every mount, calls {@link #ensureMounted} again.
 */
public interface DiskQuota {
    /** For logs and docs, e.g. {@code loop_image}. */
    String name();

    /** Creates the sandbox's filesystem of {@code bytes} and mounts it at {@code dir} (an empty directory). */
    void create(String sandboxId, Path dir, long bytes);

    /** Whether the sandbox has a filesystem of its own; when it has, mounts it at {@code dir} unless it already is. */
    boolean ensureMounted(String sandboxId, Path dir);

    /** Unmounts the sandbox's filesystem (kept for a later {@link #ensureMounted}); nothing when it has none. */
    void unmount(String sandboxId, Path dir);

    /** Unmounts and deletes the sandbox's filesystem and everything in it (idempotent). */
    void delete(String sandboxId, Path dir);
}
