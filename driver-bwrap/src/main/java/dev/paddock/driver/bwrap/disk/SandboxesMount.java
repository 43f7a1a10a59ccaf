package dev.paddock.driver.bwrap.disk;

import dev.paddock.driver.bwrap.disk.Syscalls.Failure;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Keeps the directory of all sandboxes a private mount of its own (a bind onto itself) while a disk image is mounted
 * under it, so that every disk image is a child of that one mount: a sandbox's launcher takes all the others out of
 * its mount namespace with one lazy unmount of it (see own_mounts in paddock-init.c) instead of bwrap copying them and
 * reading them for every bind. Private, so a disk mount is copied into no other namespace either. The mount goes
 * again when the last disk under it does, so nothing is left mounted once no sandbox has a disk.
 */
final class SandboxesMount {
    private SandboxesMount() {}

    private static final long MS_BIND = 4096, MS_PRIVATE = 1 << 18;
    private static final int EINVAL = 22;

    /** Makes {@code all} a private mount before a disk is mounted under it; leaves it a plain directory where that would hide mounts. */
    static void ensure(Path all) {
        try {
            mount(null, all, MS_PRIVATE); // cheapest check that it is a mount already
            return;
        } catch (Failure e) {
            if (e.errno != EINVAL) throw e;
        }
        // disk images mounted straight on the directory (by an older version): a bind over them would hide them
        if (hasMountBelow(all)) return;
        mount(all, all, MS_BIND);
        mount(null, all, MS_PRIVATE);
    }

    /** Unmounts {@code all} when nothing is mounted under it any more (the kernel refuses while anything is). */
    static void release(Path all) {
        try {
            Syscalls.call("umount2", (s, a) -> (int) Syscalls.UMOUNT2.invokeExact(s, a.allocateFrom(all.toString()), 0));
        } catch (Failure e) {
            // EBUSY: a disk is still mounted under it, or a file in it is open; EINVAL: it is no mount
        }
    }

    private static boolean hasMountBelow(Path all) {
        try (Stream<Path> dirs = Files.list(all)) {
            return dirs.anyMatch(LoopImageQuota::isMountPoint);
        } catch (IOException e) {
            return true; // unknown: leave the directory as it is
        }
    }

    private static void mount(Path source, Path target, long flags) {
        Syscalls.call("mount " + target, (s, a) -> {
            MemorySegment from = source == null ? MemorySegment.NULL : a.allocateFrom(source.toString());
            return (int) Syscalls.MOUNT.invokeExact(s, from, a.allocateFrom(target.toString()), MemorySegment.NULL, flags, MemorySegment.NULL);
        });
    }
}
