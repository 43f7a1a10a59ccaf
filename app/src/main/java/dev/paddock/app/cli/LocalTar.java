package dev.paddock.app.cli;

import dev.paddock.core.Text;
import dev.paddock.workspace.SparseTars;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Packs a local directory into a tar and unpacks a tar that came from a sandbox. What comes out of a sandbox is
 * hostile: entries that would land outside the target are refused, and links and device files are skipped, so
 * unpacking can only ever create plain files and directories under the target.
 */
final class LocalTar {
    private LocalTar() {}

    /** Writes the tree under {@code dir} with names relative to it (regular files, directories, symlinks). */
    static void pack(Path dir, OutputStream out) throws IOException {
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out, "UTF-8");
             Stream<Path> walk = Files.walk(dir)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Path p : (Iterable<Path>) walk.sorted()::iterator) {
                if (p.equals(dir)) continue;
                String name = dir.relativize(p).toString().replace('\\', '/');
                if (Files.isSymbolicLink(p)) {
                    TarArchiveEntry e = new TarArchiveEntry(name, TarArchiveEntry.LF_SYMLINK);
                    e.setLinkName(Files.readSymbolicLink(p).toString());
                    tar.putArchiveEntry(e);
                    tar.closeArchiveEntry();
                } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    TarArchiveEntry e = new TarArchiveEntry(p.toFile(), name + "/");
                    e.setMode(TarArchiveEntry.DEFAULT_DIR_MODE & ~07777 | mode(p));
                    tar.putArchiveEntry(e);
                    tar.closeArchiveEntry();
                } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    TarArchiveEntry e = new TarArchiveEntry(p.toFile(), name);
                    e.setMode(TarArchiveEntry.DEFAULT_FILE_MODE & ~07777 | mode(p));
                    tar.putArchiveEntry(e);
                    Files.copy(p, tar);
                    tar.closeArchiveEntry();
                }
                // sockets, fifos and devices have no place in a workspace: left out
            }
            tar.finish();
        }
    }

    /** The permission bits of a local file, as a number (0755). */
    private static int mode(Path p) throws IOException {
        int m = 0;
        for (PosixFilePermission perm : Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)) {
            m |= 1 << (8 - perm.ordinal());
        }
        return m;
    }

    /** Unpacks into {@code target} (created when missing); answers how many entries were skipped as unsafe. */
    static int unpack(InputStream in, Path target) throws IOException {
        Files.createDirectories(target);
        Path root = target.toRealPath();
        int skipped = 0;
        TarArchiveInputStream tar = SparseTars.reader(in);
        TarArchiveEntry e;
        while ((e = tar.getNextEntry()) != null) {
            String sparse = SparseTars.sparseName(e);
            String name = sparse != null ? sparse : e.getName();
            while (name.startsWith("./")) name = name.substring(2);
            if (name.isEmpty() || name.equals(".") || name.equals("./")) continue;
            Path dest = root.resolve(name).normalize();
            if (name.startsWith("/") || !dest.startsWith(root) || dest.equals(root)) {
                throw new CliException("the archive from the sandbox has an entry outside the target ('"
                        + Table.clean(Text.clip(name, 80)) + "'); nothing more was unpacked");
            }
            if (e.isSymbolicLink() || e.isLink() || e.isCharacterDevice() || e.isBlockDevice() || e.isFIFO()) {
                skipped++; // checked first: commons-compress also calls a link entry a "file"
            } else if (e.isDirectory()) {
                Files.createDirectories(dest);
                requireInside(root, dest);
            } else if (e.isFile()) {
                Files.createDirectories(dest.getParent());
                requireInside(root, dest.getParent());
                if (Files.isSymbolicLink(dest)) Files.delete(dest);
                Path tmp = dest.resolveSibling("." + dest.getFileName() + ".paddock-partial");
                Files.deleteIfExists(tmp);
                if (sparse != null) {
                    SparseTars.extract(tar, e, tmp); // holes stay holes
                } else {
                    try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                            LinkOption.NOFOLLOW_LINKS)) {
                        tar.transferTo(out);
                    }
                }
                Files.setPosixFilePermissions(tmp, permissions(e.getMode()));
                Files.move(tmp, dest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                skipped++;
            }
        }
        return skipped;
    }

    /** A directory that already existed could be a symlink pointing elsewhere: refuse to write through it. */
    private static void requireInside(Path root, Path dir) throws IOException {
        if (!dir.toRealPath().startsWith(root)) {
            throw new CliException("refusing to write through a symlink at " + dir + " that points outside " + root);
        }
    }

    /** The entry's rwx bits only (no setuid, setgid or sticky), and always readable and writable by the owner. */
    static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        List<PosixFilePermission> bits = List.of(
                PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
                PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
                PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ);
        for (int i = 0; i < bits.size(); i++) if ((mode & (1 << i)) != 0) set.add(bits.get(i));
        set.remove(PosixFilePermission.OTHERS_WRITE);
        return set;
    }
}
