package dev.paddock.workspace;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;

/**
 * Creates entries under a temporary name and renames them over the final name, so a reader sees the old entry or
 * the whole new one. The temporary name is made in the workspace's staging area ({@code tmpDir}: same filesystem,
 * outside the sandbox's view, so an upload cut short by a crash never shows up in the sandbox and is removed by
 * {@link Staging#recover}) or, without one, in the target directory. It is created with O_EXCL | O_NOFOLLOW; if the
 * sandbox tampers with one in its own directory, the worst outcome is that its own entry ends up in its workspace.
 */
final class AtomicFiles {
    private static final SecureRandom RANDOM = new SecureRandom();

    private AtomicFiles() {}

    /** Writes a new file's content into its open descriptor. */
    @FunctionalInterface
    interface Content {
        void writeTo(Fd file) throws IOException;

        static Content of(InputStream in) {
            return file -> FdWriter.copy(in, file);
        }
    }

    static String temporaryName() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return ".paddock-" + HexFormat.of().formatHex(bytes) + ".tmp";
    }

    /** A temporary name registered as in use by this process, so recovery leaves it alone. */
    private static String liveTemporaryName() {
        String tmp = temporaryName();
        Staging.LIVE.add(tmp);
        return tmp;
    }

    /** What of a replaced file is on the disk when {@link #replaceFile} returns. */
    enum Durability {
        /** Its data and its name: the file is synced, then its directory. */
        FILE_AND_NAME,
        /**
         * Its data: synced before the rename, so a name that reaches the disk never names data that did not. The
         * caller syncs the filesystem once before it answers (an archive import), which makes the names durable.
         */
        DATA,
        /** Neither: the caller syncs the whole tree before it commits it (a staged restore). */
        NONE
    }

    /** Replaces {@code name} in {@code dir} with a regular file holding {@code content}; returns its stat. */
    static Stat replaceFile(Fd tmpDir, Fd dir, String name, InputStream content, int mode, Instant modifiedAt, Ownership owner, String path) {
        return replaceFile(tmpDir, dir, name, Content.of(content), mode, modifiedAt, owner, path, Durability.FILE_AND_NAME);
    }

    static Stat replaceFile(Fd tmpDir, Fd dir, String name, Content content, int mode, Instant modifiedAt, Ownership owner, String path,
                            Durability durability) {
        Fd at = tmpDir != null ? tmpDir : dir;
        String tmp = liveTemporaryName();
        boolean renamed = false;
        Fd file = null;
        try {
            file = new Fd(Posix.openat(at.fd(), tmp, Posix.O_WRONLY | Posix.O_CREAT | Posix.O_EXCL | Posix.O_NOFOLLOW, 0600));
            Posix.fchmod(file.fd(), mode & 0777); // never setuid/setgid: content comes from API callers and archives
            owner.apply(file);
            content.writeTo(file);
            if (durability != Durability.NONE) Posix.fsync(file.fd());
            if (modifiedAt != null) Posix.setTimes(file.fd(), modifiedAt);
            Stat stat = Posix.stat(file.fd(), "");
            file.close();
            Posix.renameat(at.fd(), tmp, dir.fd(), name);
            renamed = true;
            if (durability == Durability.FILE_AND_NAME) Posix.fsync(dir.fd());
            return stat;
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.CONTENT_READ_FAILED,
                    "reading the content for " + WorkspaceErrors.show(path) + " failed (" + e.getMessage() + "); the file was left unchanged", e);
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        } finally {
            if (file != null) file.close();
            if (!renamed) unlinkQuietly(at, tmp);
            Staging.LIVE.remove(tmp);
        }
    }

    /** Replaces {@code name} (not a directory) with a symlink to {@code target}. */
    static void replaceWithSymlink(Fd tmpDir, Fd dir, String name, String target, Instant modifiedAt, Ownership owner, String path) {
        Fd at = tmpDir != null ? tmpDir : dir;
        String tmp = liveTemporaryName();
        boolean renamed = false;
        try {
            Posix.symlinkat(target, at.fd(), tmp);
            owner.applyToLink(at.fd(), tmp);
            if (modifiedAt != null) Posix.setTimes(at.fd(), tmp, modifiedAt);
            Posix.renameat(at.fd(), tmp, dir.fd(), name);
            renamed = true;
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        } finally {
            if (!renamed) unlinkQuietly(at, tmp);
            Staging.LIVE.remove(tmp);
        }
    }

    /** Replaces {@code name} with a hard link to {@code sourceName} in {@code sourceDir} (never through a symlink). */
    static void replaceWithHardLink(Fd tmpDir, Fd sourceDir, String sourceName, Fd dir, String name, String path) {
        Fd at = tmpDir != null ? tmpDir : dir;
        String tmp = liveTemporaryName();
        boolean renamed = false;
        try {
            Posix.linkat(sourceDir.fd(), sourceName, at.fd(), tmp);
            Posix.renameat(at.fd(), tmp, dir.fd(), name);
            renamed = true;
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        } finally {
            if (!renamed) unlinkQuietly(at, tmp);
            Staging.LIVE.remove(tmp);
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
