package dev.paddock.workspace;

import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Writes a workspace tree as a tar archive: regular files, directories and symlinks (as symlinks, never
 * followed) with their modes and modification times; fifos, sockets and devices are skipped. Long names use
 * the POSIX (pax) format. Entry names are relative to the exported directory.
 */
final class TarExporter {
    private TarExporter() {}

    static void export(Resolved source, OutputStream out, String path) {
        TarArchiveOutputStream tar = new TarArchiveOutputStream(out, "UTF-8");
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        tar.setAddPaxHeadersForNonAsciiNames(true);
        try {
            if (source.isRoot() || source.stat().isDirectory()) {
                try (Fd dir = source.isRoot() ? Fd.openDirectory(source.dir().fd(), ".") : Fd.openDirectory(source.dir().fd(), source.name())) {
                    exportDirectory(tar, dir, "", 0, path);
                }
            } else {
                exportEntry(tar, source.dir(), source.name(), source.name(), 0, path);
            }
            tar.finish(); // not close(): the caller owns the stream
            tar.flush();
        } catch (IOException e) {
            throw new PaddockException(dev.paddock.core.ErrorType.API, "tar_write_failed",
                    "writing the tar archive of " + WorkspaceErrors.show(path) + " failed: " + e.getMessage(), e);
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        }
    }

    private static void exportDirectory(TarArchiveOutputStream tar, Fd dir, String prefix, int depth, String path) throws IOException {
        if (depth > Trees.MAX_DEPTH) {
            throw PaddockException.invalid("tree_too_deep", "the tree at " + WorkspaceErrors.show(path) + " is deeper than " + Trees.MAX_DEPTH + " levels");
        }
        List<String> names = Fd.names(dir.fd()).stream().sorted().toList();
        for (String name : names) exportEntry(tar, dir, name, prefix + name, depth, path);
    }

    private static void exportEntry(TarArchiveOutputStream tar, Fd dir, String name, String entryName, int depth, String path) throws IOException {
        Stat stat;
        try {
            stat = Posix.stat(dir.fd(), name);
        } catch (Errno e) {
            if (e.errno() == Errno.ENOENT) return; // deleted meanwhile
            throw e;
        }
        if (stat.isDirectory()) {
            Fd child;
            try {
                child = Fd.openDirectory(dir.fd(), name);
            } catch (Errno e) {
                return; // replaced by something else meanwhile: skip rather than follow
            }
            try (child) {
                TarArchiveEntry entry = new TarArchiveEntry(entryName + "/", TarConstants.LF_DIR);
                describe(entry, stat);
                tar.putArchiveEntry(entry);
                tar.closeArchiveEntry();
                exportDirectory(tar, child, entryName + "/", depth + 1, path);
            }
        } else if (stat.isSymlink()) {
            String target;
            try {
                target = Posix.readlinkat(dir.fd(), name);
            } catch (Errno e) {
                return;
            }
            TarArchiveEntry entry = new TarArchiveEntry(entryName, TarConstants.LF_SYMLINK);
            entry.setLinkName(target);
            describe(entry, stat);
            tar.putArchiveEntry(entry);
            tar.closeArchiveEntry();
        } else if (stat.isRegular()) {
            exportFile(tar, dir, name, entryName);
        }
        // fifos, sockets and devices are not exported
    }

    private static void exportFile(TarArchiveOutputStream tar, Fd dir, String name, String entryName) throws IOException {
        Fd file;
        try {
            file = Fd.openForReading(dir.fd(), name);
        } catch (Errno e) {
            return; // replaced by a symlink or deleted meanwhile
        }
        try (InputStream in = new FdInputStream(file)) {
            Stat stat = Posix.stat(file.fd(), "");
            if (!stat.isRegular()) return;
            TarArchiveEntry entry = new TarArchiveEntry(entryName, TarConstants.LF_NORMAL);
            describe(entry, stat);
            entry.setSize(stat.size());
            tar.putArchiveEntry(entry);
            copyExactly(in, tar, stat.size()); // the file may change while we read: the header's size wins
            tar.closeArchiveEntry();
        }
    }

    private static void describe(TarArchiveEntry entry, Stat stat) {
        entry.setMode(stat.mode());
        // no host user names or ids in the archive: ownership is re-applied on import
        entry.setUserName("");
        entry.setGroupName("");
        entry.setIds(0, 0);
        entry.setLastModifiedTime(FileTime.from(stat.modifiedAt()));
    }

    private static void copyExactly(InputStream in, OutputStream out, long size) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long left = size;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) break;
            out.write(buffer, 0, n);
            left -= n;
        }
        java.util.Arrays.fill(buffer, (byte) 0);
        while (left > 0) {
            int n = (int) Math.min(buffer.length, left);
            out.write(buffer, 0, n);
            left -= n;
        }
    }
}
