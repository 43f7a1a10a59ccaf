package dev.paddock.workspace;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** An open file descriptor, closed once. */
final class Fd implements AutoCloseable {
    private final int fd;
    private boolean closed;

    Fd(int fd) {
        this.fd = fd;
    }

    int fd() { return fd; }

    boolean isOpen() { return !closed; }

    /** Opens a directory by host path (only for the workspace root, which the host controls). */
    static Fd openHostDirectory(String hostPath) {
        return new Fd(Posix.openat(Posix.AT_FDCWD, hostPath, Posix.O_RDONLY | Posix.O_DIRECTORY, 0));
    }

    /** Opens the directory {@code name} in {@code dirfd}; fails with ELOOP/ENOTDIR for symlinks, files and fifos. */
    static Fd openDirectory(int dirfd, String name) {
        return new Fd(Posix.openat(dirfd, name, Posix.O_RDONLY | Posix.O_DIRECTORY | Posix.O_NOFOLLOW, 0));
    }

    /** Opens {@code name} for reading without following a symlink and without blocking on a fifo. */
    static Fd openForReading(int dirfd, String name) {
        return new Fd(Posix.openat(dirfd, name, Posix.O_RDONLY | Posix.O_NOFOLLOW | Posix.O_NONBLOCK, 0));
    }

    /** The names in a directory, without "." and "..". Uses a fresh descriptor so concurrent listings don't share an offset. */
    static List<String> names(int dirfd) {
        List<String> names = new ArrayList<>();
        byte[] records = new byte[32 * 1024];
        MemorySegment buf = MemorySegment.ofArray(records);
        try (Fd listing = openDirectory(dirfd, ".")) {
            for (int n; (n = Posix.getdents64(listing.fd, records)) > 0; ) {
                for (int pos = 0; pos < n; ) {
                    int recordLength = Short.toUnsignedInt(buf.get(ValueLayout.JAVA_SHORT_UNALIGNED, pos + 16));
                    String name = buf.getString(pos + 19);
                    if (!name.equals(".") && !name.equals("..")) names.add(name);
                    pos += recordLength;
                }
            }
        }
        return names;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Posix.close(fd);
        }
    }
}
