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

/** The few C library calls the disk images need, through the FFM API, with errno captured. */
final class Syscalls {
    private Syscalls() {}

    static final int O_RDONLY = 0, O_RDWR = 2, O_CLOEXEC = 02000000;
    static final int EINTR = 4, ENXIO = 6, EAGAIN = 11, ENOMEM = 12, EBUSY = 16, ENOSPC = 28;
    static final int SEEK_DATA = 3, SEEK_HOLE = 4;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN = fn("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 2);
    private static final MethodHandle CLOSE = fn("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle LSEEK = fn("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), -1);
    static final MethodHandle IOCTL_LONG = fn("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), 2);
    static final MethodHandle IOCTL_PTR = fn("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), 2);
    static final MethodHandle MOUNT = fn("mount", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), -1);
    static final MethodHandle UMOUNT2 = fn("umount2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), -1);

    /** A failed call, with the C function's name and errno. */
    static final class Failure extends RuntimeException {
        final int errno;

        Failure(String call, int errno) {
            super(call + " failed: errno " + errno);
            this.errno = errno;
        }
    }

    @FunctionalInterface
    interface Call {
        long invoke(MemorySegment state, Arena arena) throws Throwable;
    }

    /** Runs a call, retrying on EINTR; a negative result becomes a {@link Failure}. */
    static long call(String name, Call call) {
        for (;;) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CAPTURE);
                long result = call.invoke(state, arena);
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

    static int open(String path, int flags) {
        return (int) call("open " + path, (s, a) -> (int) OPEN.invokeExact(s, a.allocateFrom(path), flags | O_CLOEXEC, 0));
    }

    static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(arena.allocate(CAPTURE), fd); // never retried: Linux frees the fd even on EINTR
        } catch (Throwable t) {
            throw new IllegalStateException("close could not be called", t);
        }
    }

    /** lseek; -1 where SEEK_DATA finds no more data (ENXIO). */
    static long seek(int fd, long offset, int whence) {
        try {
            return call("lseek", (s, a) -> (long) LSEEK.invokeExact(s, fd, offset, whence));
        } catch (Failure e) {
            if (e.errno == ENXIO) return -1;
            throw e;
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
