package dev.paddock.images;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashSet;
import java.util.Set;

/**
 * File-tree helpers that never follow symbolic links and never cross into another mount, so a rootfs full of
 * hostile links (or a mount left behind by a killed debootstrap) cannot make them touch anything outside it.
 */
final class RootfsTrees {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final int SETUID = 04000;
    private static final int SETGID = 02000;

    private RootfsTrees() {}

    /** Deletes {@code root} and everything below it; a missing root is fine. Fails if another mount is inside. */
    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root, NOFOLLOW)) return;
        if (!Files.isDirectory(root, NOFOLLOW)) {
            Files.deleteIfExists(root);
            return;
        }
        Object rootDevice = device(root);
        // walkFileTree does not follow links unless asked to: a symlink is visited as a file and unlinked.
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (!rootDevice.equals(device(dir))) {
                    throw new IOException("refusing to delete " + dir + ": it is another mount; unmount it first");
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                if (exc != null) throw exc;
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Deletes everything inside {@code dir} but keeps the directory itself. */
    static void deleteChildren(Path dir) throws IOException {
        if (!Files.isDirectory(dir, NOFOLLOW)) return;
        try (var children = Files.list(dir)) {
            for (Path child : children.toList()) deleteRecursively(child);
        }
    }

    /** Bytes of regular-file content under {@code root}, counting each hard-linked inode once. */
    static long sizeOf(Path root) throws IOException {
        long[] total = {0};
        Set<Object> seen = new HashSet<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile() && (attrs.fileKey() == null || seen.add(attrs.fileKey()))) {
                    total[0] += attrs.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) {
                return FileVisitResult.CONTINUE;
            }
        });
        return total[0];
    }

    /**
     * Clears setuid and setgid bits on every regular file. Sandboxes run with no_new_privs so the bits do nothing
     * there; removing them means a shared rootfs can never hand out privileges, whoever mounts it later.
     */
    static int stripSetuidSetgid(Path root) throws IOException {
        int[] stripped = {0};
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (!attrs.isRegularFile()) return FileVisitResult.CONTINUE;
                int mode = (Integer) Files.getAttribute(file, "unix:mode", NOFOLLOW);
                if ((mode & (SETUID | SETGID)) != 0) {
                    // Rewriting the plain permission set drops the special bits.
                    Files.setPosixFilePermissions(file, permissions(mode));
                    stripped[0]++;
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return stripped[0];
    }

    /** The rwx bits of a numeric mode; setuid, setgid and sticky are deliberately not representable here. */
    static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = new HashSet<>();
        PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
        };
        for (int bit = 0; bit < order.length; bit++) {
            if ((mode & (1 << bit)) != 0) set.add(order[bit]);
        }
        return set;
    }

    private static Object device(Path p) throws IOException {
        try {
            return Files.getAttribute(p, "unix:dev", NOFOLLOW);
        } catch (NoSuchFileException e) {
            return -1L;
        }
    }
}
