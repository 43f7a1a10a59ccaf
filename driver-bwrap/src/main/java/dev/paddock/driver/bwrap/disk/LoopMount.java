package dev.paddock.driver.bwrap.disk;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * Loop-mounts an image file with the system calls {@code mount -o loop} makes, called in-process through the FFM
 * API. The command costs two process starts per sandbox, and util-linux looks through every loop device on the
 * host for one already backed by the same file, so its time grows with the number of sandboxes; these calls take a
 * free device from {@code /dev/loop-control} and attach it with {@code LOOP_CONFIGURE} in one step. The device is
 * attached with auto-clear, so the kernel detaches it when the filesystem is unmounted (or when the mount fails and
 * the descriptor here is closed): nothing is left to detach by hand.
 */
final class LoopMount {
    private LoopMount() {}

    private static final int O_RDWR = 2, O_CLOEXEC = 02000000;
    private static final long LOOP_CONFIGURE = 0x4C0A, LOOP_CTL_GET_FREE = 0x4C82;
    private static final int LO_FLAGS_AUTOCLEAR = 4;
    /** struct loop_config: fd, block_size, struct loop_info64 (232 bytes), 8 reserved u64s. */
    private static final int LOOP_CONFIG_SIZE = 4 + 4 + 232 + 64;
    /** Offset of loop_info64.lo_flags inside loop_config (after 5 u64s and 3 u32s of loop_info64). */
    private static final int LO_FLAGS_OFFSET = 8 + 5 * 8 + 3 * 4;
    private static final long MS_NOSUID = 2, MS_NODEV = 4;
    private static final int MNT_DETACH = 2;
    private static final int EINTR = 4, EBUSY = 16;
    /** A free device can be taken by another process between asking for it and attaching it: ask again. */
    private static final int ATTEMPTS = 20;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN = fn("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 2);
    private static final MethodHandle CLOSE = fn("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle IOCTL_LONG = fn("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), 2);
    private static final MethodHandle IOCTL_PTR = fn("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), 2);
    private static final MethodHandle MOUNT = fn("mount", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), -1);
    private static final MethodHandle UMOUNT2 = fn("umount2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), -1);

    /** A failed call, with the C function's name and errno. */
    static final class Failure extends RuntimeException {
        final int errno;

        Failure(String call, int errno) {
            super(call + " failed: errno " + errno);
            this.errno = errno;
        }
    }

    /** Attaches {@code image} to a free loop device and mounts its ext4 filesystem on {@code dir}, nosuid and nodev. */
    static void mountExt4(Path image, Path dir, String options) {
        int file = open(image.toString());
        try {
            int control = open("/dev/loop-control");
            try {
                for (int attempt = 1; ; attempt++) {
                    int number = call("ioctl(LOOP_CTL_GET_FREE)", (s, a) -> (int) IOCTL_LONG.invokeExact(s, control, LOOP_CTL_GET_FREE, 0L));
                    String device = "/dev/loop" + number;
                    int loop = open(device);
                    try {
                        configure(loop, file);
                    } catch (Failure e) {
                        close(loop);
                        if (e.errno == EBUSY && attempt < ATTEMPTS) continue;
                        throw e;
                    }
                    try {
                        call("mount", (s, a) -> (int) MOUNT.invokeExact(s, a.allocateFrom(device), a.allocateFrom(dir.toString()),
                                a.allocateFrom("ext4"), MS_NOSUID | MS_NODEV, a.allocateFrom(options)));
                    } finally {
                        close(loop); // the mount holds the device now; with auto-clear a failed mount detaches it here
                    }
                    return;
                }
            } finally {
                close(control);
            }
        } finally {
            close(file);
        }
    }

    /** Unmounts {@code dir}; false when it is busy. */
    static boolean unmount(Path dir) {
        return unmount(dir, 0);
    }

    /** Detaches {@code dir} now; the kernel frees the filesystem when its last user lets go. */
    static void detach(Path dir) {
        unmount(dir, MNT_DETACH);
    }

    private static boolean unmount(Path dir, int flags) {
        try {
            call("umount2", (s, a) -> (int) UMOUNT2.invokeExact(s, a.allocateFrom(dir.toString()), flags));
            return true;
        } catch (Failure e) {
            if (e.errno == EBUSY) return false;
            throw e;
        }
    }

    private static void configure(int loop, int file) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment config = arena.allocate(LOOP_CONFIG_SIZE, 8); // zeroed: no offset, no size limit
            config.set(JAVA_INT, 0, file);
            config.set(JAVA_INT, LO_FLAGS_OFFSET, LO_FLAGS_AUTOCLEAR);
            call("ioctl(LOOP_CONFIGURE)", (s, a) -> (int) IOCTL_PTR.invokeExact(s, loop, LOOP_CONFIGURE, config));
        }
    }

    private static int open(String path) {
        return call("open " + path, (s, a) -> (int) OPEN.invokeExact(s, a.allocateFrom(path), O_RDWR | O_CLOEXEC, 0));
    }

    private static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(arena.allocate(CAPTURE), fd); // never retried: Linux frees the fd even on EINTR
        } catch (Throwable t) {
            throw new IllegalStateException("close could not be called", t);
        }
    }

    @FunctionalInterface
    private interface Call {
        int invoke(MemorySegment state, Arena arena) throws Throwable;
    }

    /** Runs a call, retrying on EINTR; a negative result becomes a {@link Failure}. */
    private static int call(String name, Call call) {
        for (;;) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CAPTURE);
                int result = call.invoke(state, arena);
                if (result >= 0) return result;
                int errno = (int) ERRNO.get(state, 0L);
                if (errno != EINTR) throw new Failure(name, errno);
            } catch (RuntimeException e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(name + " could not be called", t);
            }
        }
    }

    @SuppressWarnings("restricted") // the point of this class; the JVM needs --enable-native-access
    private static MethodHandle fn(String name, FunctionDescriptor descriptor, int firstVariadic) {
        Linker.Option capture = Linker.Option.captureCallState("errno");
        MemorySegment symbol = LINKER.defaultLookup().findOrThrow(name);
        return firstVariadic < 0
                ? LINKER.downcallHandle(symbol, descriptor, capture)
                : LINKER.downcallHandle(symbol, descriptor, capture, Linker.Option.firstVariadicArg(firstVariadic));
    }
}
