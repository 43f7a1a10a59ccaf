package dev.paddock.core.spi;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * File access to a sandbox's {@code /workspace}. Paths are as seen inside the sandbox: absolute under
 * {@code /workspace} or relative to it. Anything that resolves outside the workspace — {@code ..}, other absolute
 * paths, symlinks pointing out — is refused with {@code path_outside_workspace}; nothing outside is read or written.
 * Writes are atomic: a reader sees the old file or the whole new one, never half of it.
 */
public interface Workspace {
    String ROOT = "/workspace";

    /** Where a sandbox writes files meant for the caller; read by the host through {@link Sandbox#outputs()}. */
    String OUTPUTS = "/mnt/session/outputs";

    FileEntry stat(String path);

    List<FileEntry> list(String path);

    /** Opens a regular file for reading; the caller closes the stream. */
    InputStream read(String path);

    /** Creates or replaces a regular file with the stream's bytes, creating missing parent directories. */
    FileEntry write(String path, InputStream content);

    void mkdir(String path);

    /** Deletes a file, a symlink (not its target) or, with {@code recursive}, a directory tree. */
    void delete(String path, boolean recursive);

    /** Writes the tree at {@code path} as a tar archive (regular files, directories, symlinks, modes). */
    void exportTar(String path, OutputStream out);

    /** Unpacks a tar archive under {@code path}; entries that would land outside the workspace are refused. */
    void importTar(String path, InputStream tar);

    /**
     * Watches the directory at {@code path} (with {@code recursive}, its subdirectories too, as they appear) for
     * created, modified and deleted entries. Symlinks are never followed; the caller closes the watch. Workspaces
     * that cannot be watched refuse with {@code unsupported_capability}.
     */
    default FileWatch watch(String path, boolean recursive) {
        throw new PaddockException(ErrorCode.UNSUPPORTED_CAPABILITY, "this sandbox's workspace cannot be watched for changes (see GET /v1/drivers: file_watch)");
    }

    /** Removes everything inside the workspace. */
    void clear();

    /**
     * Replaces the whole workspace with the archive's tree (a checkpoint restore). Workspaces with a staging area on
     * the same filesystem, outside the sandbox's view, make this all or nothing: the archive is unpacked there while
     * the sandbox runs, and only the swap of the top-level entries runs inside {@code guard} (where the host freezes
     * the sandbox); a crash before the swap's commit leaves the old tree, one after it is rolled forward the next time
     * the workspace is opened. This default, for workspaces without a staging area, clears and imports inside the
     * guard and is not atomic.
     */
    default void replaceFromTar(InputStream tar, SwapGuard guard) {
        guard.run(() -> {
            clear();
            importTar(ROOT, tar);
        });
    }

    /** Runs the short critical part of {@link #replaceFromTar}; the host freezes the sandbox around it. */
    @FunctionalInterface
    interface SwapGuard {
        void run(Runnable swap);

        SwapGuard NONE = Runnable::run;
    }
}
