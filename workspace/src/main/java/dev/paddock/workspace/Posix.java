package dev.paddock.workspace;

import static dev.paddock.workspace.NativeCall.call;
import static dev.paddock.workspace.NativeCall.downcall;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The Linux *at() system calls, called through the FFM API. Every path argument given here is a single
 * component relative to a directory descriptor, which is what makes workspace access immune to a sandbox
 * swapping directories for symlinks while we work. (java.nio's SecureDirectoryStream has no mkdirat,
 * symlinkat or readlinkat, and opens directories without O_DIRECTORY, so a fifo swapped in would block.)
 */
final class Posix {
    private Posix() {}

    private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));

    static final int AT_FDCWD = -100;
    static final int O_RDONLY = 0, O_WRONLY = 1, O_CREAT = 0100, O_EXCL = 0200, O_NONBLOCK = 04000, O_CLOEXEC = 02000000;
    static final int O_DIRECTORY = AARCH64 ? 040000 : 0200000;
    static final int O_NOFOLLOW = AARCH64 ? 0100000 : 0400000;
    static final int SEEK_SET = 0, SEEK_DATA = 3, SEEK_HOLE = 4;
    static final int AT_SYMLINK_NOFOLLOW = 0x100, AT_REMOVEDIR = 0x200, AT_EMPTY_PATH = 0x1000;
    private static final int STATX_BASIC_STATS = 0x7ff;

    private static final MethodHandle OPENAT = downcall("openat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 3);
    private static final MethodHandle STATX = downcall("statx", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle READLINKAT = downcall("readlinkat", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle MKDIRAT = downcall("mkdirat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle SYMLINKAT = downcall("symlinkat", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle LINKAT = downcall("linkat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle RENAMEAT = downcall("renameat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle UNLINKAT = downcall("unlinkat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle FCHMOD = downcall("fchmod", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle FCHOWN = downcall("fchown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle FCHOWNAT = downcall("fchownat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle UTIMENSAT = downcall("utimensat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle FUTIMENS = downcall("futimens", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle FSYNC = downcall("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = downcall("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE = downcall("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle SYNCFS = downcall("syncfs", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle LSEEK = downcall("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle FTRUNCATE = downcall("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle INOTIFY_INIT1 = downcall("inotify_init1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle INOTIFY_ADD_WATCH = downcall("inotify_add_watch", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle INOTIFY_RM_WATCH = downcall("inotify_rm_watch", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle POLL = downcall("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle GETDENTS64 = downcall("getdents64", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));

    static int openat(int dirfd, String name, int flags, int mode) {
        return (int) call("openat", (s, a) -> (int) OPENAT.invokeExact(s, dirfd, a.allocateFrom(name), flags | O_CLOEXEC, mode));
    }

    static void close(int fd) {
        NativeCall.close(fd);
    }

    /** lstat-like when {@code name} is non-empty (never follows a final symlink); fstat when empty. */
    // Every buffer a call fills is allocated in the call's own arena and copied out inside it: a call may run on
    // another thread than its caller's (NativeCall), where a segment of the caller's confined arena is out of reach.

    static Stat stat(int dirfd, String name) {
        int flags = AT_SYMLINK_NOFOLLOW | (name.isEmpty() ? AT_EMPTY_PATH : 0);
        Stat[] out = new Stat[1];
        call("statx", (s, a) -> {
            MemorySegment buf = a.allocate(256, 8);
            int r = (int) STATX.invokeExact(s, dirfd, a.allocateFrom(name), flags, STATX_BASIC_STATS, buf);
            if (r >= 0) {
                out[0] = new Stat(Short.toUnsignedInt(buf.get(ValueLayout.JAVA_SHORT, 28)), buf.get(JAVA_INT, 20), buf.get(JAVA_INT, 24),
                        buf.get(JAVA_LONG, 40), Instant.ofEpochSecond(buf.get(JAVA_LONG, 112), buf.get(JAVA_INT, 120)), buf.get(JAVA_INT, 16));
            }
            return r;
        });
        return out[0];
    }

    /** The device an open descriptor's file lives on (statx's stx_dev_major and stx_dev_minor). */
    static long device(int fd) {
        long[] out = new long[1];
        call("statx", (s, a) -> {
            MemorySegment buf = a.allocate(256, 8);
            int r = (int) STATX.invokeExact(s, fd, a.allocateFrom(""), AT_EMPTY_PATH, STATX_BASIC_STATS, buf);
            out[0] = (Integer.toUnsignedLong(buf.get(JAVA_INT, 136)) << 32) | Integer.toUnsignedLong(buf.get(JAVA_INT, 140));
            return r;
        });
        return out[0];
    }

    static String readlinkat(int dirfd, String name) {
        byte[][] out = new byte[1][];
        long n = call("readlinkat", (s, a) -> {
            MemorySegment buf = a.allocate(4097);
            long r = (long) READLINKAT.invokeExact(s, dirfd, a.allocateFrom(name), buf, 4097L);
            if (r >= 0 && r <= 4096) out[0] = buf.asSlice(0, r).toArray(ValueLayout.JAVA_BYTE);
            return r;
        });
        if (n > 4096) throw new Errno("readlinkat", Errno.ENAMETOOLONG);
        return new String(out[0], StandardCharsets.UTF_8);
    }

    static void mkdirat(int dirfd, String name, int mode) {
        call("mkdirat", (s, a) -> (int) MKDIRAT.invokeExact(s, dirfd, a.allocateFrom(name), mode));
    }

    static void symlinkat(String target, int dirfd, String name) {
        call("symlinkat", (s, a) -> (int) SYMLINKAT.invokeExact(s, a.allocateFrom(target), dirfd, a.allocateFrom(name)));
    }

    /** Hard link without following a symlink at {@code oldName}. */
    static void linkat(int oldDirfd, String oldName, int newDirfd, String newName) {
        call("linkat", (s, a) -> (int) LINKAT.invokeExact(s, oldDirfd, a.allocateFrom(oldName), newDirfd, a.allocateFrom(newName), 0));
    }

    static void renameat(int oldDirfd, String oldName, int newDirfd, String newName) {
        call("renameat", (s, a) -> (int) RENAMEAT.invokeExact(s, oldDirfd, a.allocateFrom(oldName), newDirfd, a.allocateFrom(newName)));
    }

    static void unlinkat(int dirfd, String name, int flags) {
        call("unlinkat", (s, a) -> (int) UNLINKAT.invokeExact(s, dirfd, a.allocateFrom(name), flags));
    }

    static void fchmod(int fd, int mode) {
        call("fchmod", (s, a) -> (int) FCHMOD.invokeExact(s, fd, mode));
    }

    static void fchown(int fd, int uid, int gid) {
        call("fchown", (s, a) -> (int) FCHOWN.invokeExact(s, fd, uid, gid));
    }

    static void lchownat(int dirfd, String name, int uid, int gid) {
        call("fchownat", (s, a) -> (int) FCHOWNAT.invokeExact(s, dirfd, a.allocateFrom(name), uid, gid, AT_SYMLINK_NOFOLLOW));
    }

    /** Sets access and modification time of a name in {@code dirfd}, never following a final symlink. */
    static void setTimes(int dirfd, String name, Instant time) {
        call("utimensat", (s, a) -> (int) UTIMENSAT.invokeExact(s, dirfd, a.allocateFrom(name), timespecs(a, time), AT_SYMLINK_NOFOLLOW));
    }

    /** Sets access and modification time of an open descriptor. */
    static void setTimes(int fd, Instant time) {
        call("futimens", (s, a) -> (int) FUTIMENS.invokeExact(s, fd, timespecs(a, time)));
    }

    private static MemorySegment timespecs(Arena arena, Instant time) {
        MemorySegment times = arena.allocate(JAVA_LONG, 4);
        for (int i = 0; i < 2; i++) {
            times.setAtIndex(JAVA_LONG, i * 2L, time.getEpochSecond());
            times.setAtIndex(JAVA_LONG, i * 2L + 1, time.getNano());
        }
        return times;
    }

    static void fsync(int fd) {
        call("fsync", (s, a) -> (int) FSYNC.invokeExact(s, fd));
    }

    /** Flushes the whole filesystem that {@code fd} lives on. */
    static void syncfs(int fd) {
        call("syncfs", (s, a) -> (int) SYNCFS.invokeExact(s, fd));
    }

    /** Reads up to {@code length} bytes into {@code dst} at {@code offset}; 0 at the end. */
    static int read(int fd, byte[] dst, int offset, int length) {
        return (int) call("read", (s, a) -> {
            MemorySegment buf = a.allocate(length);
            long n = (long) READ.invokeExact(s, fd, buf, (long) length);
            if (n > 0) MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, dst, offset, (int) n);
            return n;
        });
    }

    /** Writes up to {@code length} bytes of {@code src} from {@code offset}; returns how many were written. */
    static int write(int fd, byte[] src, int offset, int length) {
        return (int) call("write", (s, a) -> {
            MemorySegment buf = a.allocate(length);
            MemorySegment.copy(src, offset, buf, ValueLayout.JAVA_BYTE, 0, length);
            return (long) WRITE.invokeExact(s, fd, buf, (long) length);
        });
    }

    /** lseek(2); with SEEK_DATA past the last data it fails with ENXIO. */
    static long lseek(int fd, long offset, int whence) {
        return call("lseek", (s, a) -> (long) LSEEK.invokeExact(s, fd, offset, whence));
    }

    static void ftruncate(int fd, long length) {
        call("ftruncate", (s, a) -> (int) FTRUNCATE.invokeExact(s, fd, length));
    }

    /** Fills {@code dst} with directory records (struct linux_dirent64); returns their length, 0 at the end. */
    static int getdents64(int fd, byte[] dst) {
        return (int) call("getdents64", (s, a) -> {
            MemorySegment buf = a.allocate(dst.length, 8);
            long n = (long) GETDENTS64.invokeExact(s, fd, buf, (long) dst.length);
            if (n > 0) MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, dst, 0, (int) n);
            return n;
        });
    }

    /** inotify_init1(IN_NONBLOCK | IN_CLOEXEC). */
    static int inotifyInit() {
        return (int) call("inotify_init1", (s, a) -> (int) INOTIFY_INIT1.invokeExact(s, O_NONBLOCK | O_CLOEXEC));
    }

    /**
     * Watches the directory open as {@code dirFd}: the watch is added through {@code /proc/self/fd/N}, which names
     * exactly the directory that descriptor holds, so no path is walked (nor any symlink followed) to find it.
     */
    static int inotifyWatchDescriptor(int inotifyFd, int dirFd, int mask) {
        String self = "/proc/self/fd/" + dirFd;
        return (int) call("inotify_add_watch", (s, a) -> (int) INOTIFY_ADD_WATCH.invokeExact(s, inotifyFd, a.allocateFrom(self), mask));
    }

    static void inotifyRemoveWatch(int inotifyFd, int wd) {
        try {
            call("inotify_rm_watch", (s, a) -> (int) INOTIFY_RM_WATCH.invokeExact(s, inotifyFd, wd));
        } catch (Errno e) {
            // already gone with its directory (EINVAL)
        }
    }

    /** Waits up to {@code millis} for {@code fd} to be readable; true when it is. */
    static boolean pollReadable(int fd, int millis) {
        return call("poll", (s, a) -> {
            MemorySegment pfd = a.allocate(8, 4);
            pfd.set(JAVA_INT, 0, fd);
            pfd.set(ValueLayout.JAVA_SHORT, 4, (short) 1); // POLLIN
            return (int) POLL.invokeExact(s, pfd, 1L, millis);
        }) > 0;
    }
}
