package dev.paddock.driver.bwrap.disk;

import static dev.paddock.workspace.NativeCall.downcall;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.paddock.workspace.Errno;
import dev.paddock.workspace.NativeCall;
import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/** The few C library calls the disk images need, built by {@link NativeCall}; a failure is an {@link Errno}. */
final class Syscalls {
    private Syscalls() {}

    static final int O_RDONLY = 0, O_RDWR = 2, O_CLOEXEC = 02000000;
    static final int SEEK_DATA = 3, SEEK_HOLE = 4;

    private static final MethodHandle OPEN = downcall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 2);
    private static final MethodHandle LSEEK = downcall("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    static final MethodHandle IOCTL_LONG = downcall("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), 2);
    static final MethodHandle IOCTL_PTR = downcall("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), 2);
    static final MethodHandle MOUNT = downcall("mount", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle UMOUNT2 = downcall("umount2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    static int open(String path, int flags) {
        return (int) NativeCall.call("open " + path, (s, a) -> (int) OPEN.invokeExact(s, a.allocateFrom(path), flags | O_CLOEXEC, 0));
    }

    /** lseek; -1 where SEEK_DATA finds no more data (ENXIO). */
    static long seek(int fd, long offset, int whence) {
        try {
            return NativeCall.call("lseek", (s, a) -> (long) LSEEK.invokeExact(s, fd, offset, whence));
        } catch (Errno e) {
            if (e.errno() == Errno.ENXIO) return -1;
            throw e;
        }
    }
}
