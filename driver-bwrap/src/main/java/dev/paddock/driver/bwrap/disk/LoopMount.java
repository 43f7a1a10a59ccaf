package dev.paddock.driver.bwrap.disk;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.paddock.workspace.Errno;
import dev.paddock.workspace.NativeCall;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Loop-mounts an image file with the system calls {@code mount -o loop} makes, in-process. The command costs two
 * process starts per sandbox, and util-linux looks through every loop device on the host for one already backed by
 * the same file, so its time grows with the number of sandboxes; these calls take a free device from
 * {@code /dev/loop-control} and attach it with {@code LOOP_CONFIGURE} in one step. The device is attached with
 * auto-clear, so the kernel detaches it when the filesystem is unmounted (or when the mount fails and the
 * descriptor here is closed): nothing is left to detach by hand.
 */
final class LoopMount {
    private LoopMount() {}

    private static final long LOOP_CONFIGURE = 0x4C0A, LOOP_CTL_GET_FREE = 0x4C82;
    private static final int LO_FLAGS_AUTOCLEAR = 4;
    /** struct loop_config: fd, block_size, struct loop_info64 (232 bytes), 8 reserved u64s. */
    private static final int LOOP_CONFIG_SIZE = 4 + 4 + 232 + 64;
    /** Offset of loop_info64.lo_flags inside loop_config (after 5 u64s and 3 u32s of loop_info64). */
    private static final int LO_FLAGS_OFFSET = 8 + 5 * 8 + 3 * 4;
    private static final long MS_NOSUID = 2, MS_NODEV = 4;
    private static final int MNT_DETACH = 2;
    /** A free device can be taken by another process between asking for it and attaching it: ask again. */
    private static final int ATTEMPTS = 20;

    /** Attaches {@code image} to a free loop device and mounts its ext4 filesystem on {@code dir}, nosuid and nodev. */
    static void mountExt4(Path image, Path dir, String options) {
        int file = Syscalls.open(image.toString(), Syscalls.O_RDWR);
        try {
            int control = Syscalls.open("/dev/loop-control", Syscalls.O_RDWR);
            try {
                for (int attempt = 1; ; attempt++) {
                    int number = (int) NativeCall.call("ioctl(LOOP_CTL_GET_FREE)",
                            (s, a) -> (int) Syscalls.IOCTL_LONG.invokeExact(s, control, LOOP_CTL_GET_FREE, 0L));
                    String device = "/dev/loop" + number;
                    int loop = Syscalls.open(device, Syscalls.O_RDWR);
                    try {
                        configure(loop, file);
                    } catch (Errno e) {
                        NativeCall.close(loop);
                        if (e.errno() == Errno.EBUSY && attempt < ATTEMPTS) continue;
                        throw e;
                    }
                    try {
                        NativeCall.call("mount", (s, a) -> (int) Syscalls.MOUNT.invokeExact(s, a.allocateFrom(device),
                                a.allocateFrom(dir.toString()), a.allocateFrom("ext4"), MS_NOSUID | MS_NODEV, a.allocateFrom(options)));
                    } finally {
                        NativeCall.close(loop); // the mount holds the device now; with auto-clear a failed mount detaches it here
                    }
                    return;
                }
            } finally {
                NativeCall.close(control);
            }
        } finally {
            NativeCall.close(file);
        }
    }

    /** Unmounts {@code dir}; false when it is busy. */
    static boolean unmount(Path dir) {
        try {
            umount2(dir, 0);
            return true;
        } catch (Errno e) {
            if (e.errno() == Errno.EBUSY) return false;
            throw e;
        }
    }

    /** Detaches {@code dir} now; the kernel frees the filesystem when its last user lets go. */
    static void detach(Path dir) {
        umount2(dir, MNT_DETACH);
    }

    private static void umount2(Path dir, int flags) {
        NativeCall.call("umount2", (s, a) -> (int) Syscalls.UMOUNT2.invokeExact(s, a.allocateFrom(dir.toString()), flags));
    }

    private static void configure(int loop, int file) {
        // the config lives in the call's own arena: the call may run on another thread (NativeCall)
        NativeCall.call("ioctl(LOOP_CONFIGURE)", (s, a) -> {
            MemorySegment config = a.allocate(LOOP_CONFIG_SIZE, 8); // zeroed: no offset, no size limit
            config.set(JAVA_INT, 0, file);
            config.set(JAVA_INT, LO_FLAGS_OFFSET, LO_FLAGS_AUTOCLEAR);
            return (int) Syscalls.IOCTL_PTR.invokeExact(s, loop, LOOP_CONFIGURE, config);
        });
    }
}
