package dev.paddock.workspace;

/** A failed system call with its errno; callers translate it into a PaddockException that says what to fix. */
public final class Errno extends RuntimeException {
    public static final int EPERM = 1, ENOENT = 2, EINTR = 4, ENXIO = 6, EBUSY = 16, EAGAIN = 11, ENOMEM = 12, EACCES = 13, EEXIST = 17,
            EXDEV = 18, ENOTDIR = 20, EISDIR = 21, EINVAL = 22, ENFILE = 23, EMFILE = 24, EFBIG = 27, ENOSPC = 28, ENAMETOOLONG = 36,
            ENOTEMPTY = 39, ELOOP = 40, EDQUOT = 122;

    private final int errno;
    private final String call;

    public Errno(String call, int errno) {
        super(call + " failed: " + name(errno));
        this.errno = errno;
        this.call = call;
    }

    public int errno() { return errno; }

    public String call() { return call; }

    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM (operation not permitted)";
            case ENOENT -> "ENOENT (no such file or directory)";
            case EINTR -> "EINTR";
            case ENXIO -> "ENXIO";
            case EAGAIN -> "EAGAIN";
            case EBUSY -> "EBUSY (device or resource busy)";
            case ENOMEM -> "ENOMEM (out of kernel memory)";
            case ENFILE -> "ENFILE (too many open files on the host)";
            case EMFILE -> "EMFILE (too many open files, or inotify instances)";
            case EACCES -> "EACCES (permission denied)";
            case EEXIST -> "EEXIST (already exists)";
            case EXDEV -> "EXDEV (cross-device)";
            case ENOTDIR -> "ENOTDIR (not a directory)";
            case EISDIR -> "EISDIR (is a directory)";
            case EINVAL -> "EINVAL";
            case EFBIG -> "EFBIG (file too large)";
            case ENOSPC -> "ENOSPC (no space left on device)";
            case ENAMETOOLONG -> "ENAMETOOLONG";
            case ENOTEMPTY -> "ENOTEMPTY (directory not empty)";
            case ELOOP -> "ELOOP (symbolic link)";
            case EDQUOT -> "EDQUOT (quota exceeded)";
            default -> "errno " + errno;
        };
    }
}
