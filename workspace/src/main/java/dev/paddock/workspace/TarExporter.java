package dev.paddock.workspace;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
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
            throw new PaddockException(ErrorCode.TAR_WRITE_FAILED,
                    "writing the tar archive of " + WorkspaceErrors.show(path) + " failed: " + e.getMessage(), e);
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        }
    }

    private static void exportDirectory(TarArchiveOutputStream tar, Fd dir, String prefix, int depth, String path) throws IOException {
        if (depth > Trees.MAX_DEPTH) {
            throw new PaddockException(ErrorCode.TREE_TOO_DEEP, "the tree at " + WorkspaceErrors.show(path) + " is deeper than " + Trees.MAX_DEPTH + " levels");
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
            SparseMap sparse = SparseMap.scan(file, stat.size());
            if (sparse != null) {
                exportSparse(tar, file, in, entryName, stat, sparse);
                return;
            }
            TarArchiveEntry entry = new TarArchiveEntry(entryName, TarConstants.LF_NORMAL);
            describe(entry, stat);
            entry.setSize(stat.size());
            tar.putArchiveEntry(entry);
            copyExactly(in, tar, stat.size()); // the file may change while we read: the header's size wins
            tar.closeArchiveEntry();
        }
    }

    /**
     * A file with holes as a GNU tar "PAX 1.0" sparse entry: an extended header naming the file and its real size,
     * then a regular entry under a stand-in name whose data is the sparse map followed by the data regions. Commons
     * Compress does not write this format, so the extended header is written here as an entry of its own; the
     * stand-in name is short ASCII so that no second extended header is needed (sizes past the ustar field are
     * written in base-256, which GNU tar and the importer read).
     */
    private static void exportSparse(TarArchiveOutputStream tar, Fd file, InputStream in, String entryName, Stat stat,
                                     SparseMap sparse) throws IOException {
        String standIn = "GNUSparseFile.0/" + asciiTag(entryName);
        byte[] records = paxRecords(List.of(
                new String[] {"GNU.sparse.major", "1"},
                new String[] {"GNU.sparse.minor", "0"},
                new String[] {"GNU.sparse.name", entryName},
                new String[] {"GNU.sparse.realsize", Long.toString(sparse.realSize())}));
        TarArchiveEntry header = new TarArchiveEntry("PaxHeaders.0/" + asciiTag(entryName), TarConstants.LF_PAX_EXTENDED_HEADER_LC);
        describe(header, stat);
        header.setSize(records.length);
        tar.putArchiveEntry(header);
        tar.write(records);
        tar.closeArchiveEntry();
        byte[] map = sparse.encode();
        TarArchiveEntry entry = new TarArchiveEntry(standIn, TarConstants.LF_NORMAL);
        describe(entry, stat);
        entry.setSize(map.length + sparse.dataBytes());
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_STAR); // never a second extended header
        try {
            tar.putArchiveEntry(entry);
        } finally {
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        }
        tar.write(map);
        sparse.copyData(file, in, tar);
        tar.closeArchiveEntry();
    }

    /** A short ASCII rendering of an entry's last component, for stand-in names only. */
    private static String asciiTag(String entryName) {
        String base = entryName.substring(entryName.lastIndexOf('/') + 1).replaceAll("[^A-Za-z0-9._-]", "_");
        return base.length() > 64 ? base.substring(0, 64) : base.isEmpty() ? "file" : base;
    }

    /** pax extended header records: "<length> <key>=<value>\n", the length counting itself. */
    static byte[] paxRecords(List<String[]> pairs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String[] kv : pairs) {
            byte[] body = (" " + kv[0] + "=" + kv[1] + "\n").getBytes(StandardCharsets.UTF_8);
            int length = body.length;
            while (length != body.length + Integer.toString(length).length()) length = body.length + Integer.toString(length).length();
            out.writeBytes(Integer.toString(length).getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(body);
        }
        return out.toByteArray();
    }

    private static void describe(TarArchiveEntry entry, Stat stat) {
        entry.setMode(stat.mode());
        // no host user names or ids in the archive: ownership is re-applied on import
        entry.setUserName("");
        entry.setGroupName("");
        entry.setIds(0, 0);
        entry.setLastModifiedTime(FileTime.from(stat.modifiedAt()));
    }

    static void copyExactly(InputStream in, OutputStream out, long size) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long left = size;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) break;
            out.write(buffer, 0, n);
            left -= n;
        }
        Arrays.fill(buffer, (byte) 0);
        while (left > 0) {
            int n = (int) Math.min(buffer.length, left);
            out.write(buffer, 0, n);
            left -= n;
        }
    }
}
