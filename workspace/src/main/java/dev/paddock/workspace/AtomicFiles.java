package dev.paddock.workspace;

import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;

/**
 * Creates entries under a temporary name in the target directory and renames them over the final name, so a
 * reader sees the old entry or the whole new one. The temporary name is created with O_EXCL | O_NOFOLLOW; if
 * the sandbox tampers with it, the worst outcome is that its own entry ends up in its own workspace.
 */
final class AtomicFiles {
    private static final SecureRandom RANDOM = new SecureRandom();

    private AtomicFiles() {}

    static String temporaryName() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return ".paddock-" + HexFormat.of().formatHex(bytes) + ".tmp";
    }

    /** Replaces {@code name} in {@code dir} with a regular file holding {@code content}; returns its stat. */
    static Stat replaceFile(Fd dir, String name, InputStream content, int mode, Instant modifiedAt, Ownership owner, String path) {
        String tmp = temporaryName();
        Fd file = new Fd(Posix.openat(dir.fd(), tmp, Posix.O_WRONLY | Posix.O_CREAT | Posix.O_EXCL | Posix.O_NOFOLLOW, 0600));
        boolean renamed = false;
        try {
            Posix.fchmod(file.fd(), mode & 0777); // never setuid/setgid: content comes from API callers and archives
            owner.apply(file);
            FdWriter.copy(content, file);
            Posix.fsync(file.fd());
            if (modifiedAt != null) Posix.setTimes(file.fd(), modifiedAt);
            Stat stat = Posix.stat(file.fd(), "");
            file.close();
            Posix.renameat(dir.fd(), tmp, dir.fd(), name);
            renamed = true;
            Posix.fsync(dir.fd());
            return stat;
        } catch (IOException e) {
            throw PaddockException.invalid("content_read_failed",
                    "reading the content for " + WorkspaceErrors.show(path) + " failed (" + e.getMessage() + "); the file was left unchanged");
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        } finally {
            file.close();
            if (!renamed) unlinkQuietly(dir, tmp);
        }
    }

    /** Replaces {@code name} (not a directory) with a symlink to {@code target}. */
    static void replaceWithSymlink(Fd dir, String name, String target, Instant modifiedAt, Ownership owner, String path) {
        String tmp = temporaryName();
        boolean renamed = false;
        try {
            Posix.symlinkat(target, dir.fd(), tmp);
            owner.applyToLink(dir.fd(), tmp);
            if (modifiedAt != null) Posix.setTimes(dir.fd(), tmp, modifiedAt);
            Posix.renameat(dir.fd(), tmp, dir.fd(), name);
            renamed = true;
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        } finally {
            if (!renamed) unlinkQuietly(dir, tmp);
        }
    }

    /** Replaces {@code name} with a hard link to {@code sourceName} in {@code sourceDir} (never through a symlink). */
    static void replaceWithHardLink(Fd sourceDir, String sourceName, Fd dir, String name, String path) {
        String tmp = temporaryName();
        boolean renamed = false;
        try {
            Posix.linkat(sourceDir.fd(), sourceName, dir.fd(), tmp);
            Posix.renameat(dir.fd(), tmp, dir.fd(), name);
            renamed = true;
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        } finally {
            if (!renamed) unlinkQuietly(dir, tmp);
        }
    }

    private static void unlinkQuietly(Fd dir, String name) {
        try {
            Posix.unlinkat(dir.fd(), name, 0);
        } catch (Errno ignored) {
            // already gone
        }
    }
}
