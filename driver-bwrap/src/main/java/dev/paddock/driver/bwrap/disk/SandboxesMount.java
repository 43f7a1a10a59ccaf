package dev.paddock.driver.bwrap.disk;

import dev.paddock.workspace.Errno;
import dev.paddock.workspace.NativeCall;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Keeps the directory of all sandboxes a mount of its own (a bind onto itself) while a disk image is mounted under
 * it, so that every disk image is a child of that one mount: a sandbox's launcher takes all the others out of its
 * mount namespace with one lazy unmount of it (see own_mounts in paddock-init.c) instead of bwrap copying them and
 * reading them for every bind. Shared, in a peer group of its own (not the one of the filesystem it is on): a
 * launcher's namespace is a slave of the host's, so when the host unmounts a disk, the copies that namespaces still
 * hold (a sandbox's own, or another data directory's disks) go too and the image is never held mounted twice, while
 * a disk mounted later reaches no namespace, since each launcher detached its copy of this mount. The mount goes
 * again when the last disk under it does, so nothing is left mounted once no sandbox has a disk.
 */
final class SandboxesMount {
    private SandboxesMount() {}

    private static final long MS_BIND = 4096, MS_PRIVATE = 1 << 18, MS_SHARED = 1 << 20;

    /** Makes {@code all} a mount before a disk is mounted under it; leaves it a plain directory where that would hide mounts. */
    static void ensure(Path all) {
        try {
            mount(null, all, MS_SHARED); // cheapest check that it is a mount already (EINVAL if not); changes nothing if so
            return;
        } catch (Errno e) {
            if (e.errno() != Errno.EINVAL) throw e;
        }
        // disk images mounted straight on the directory (by an older version): a bind over them would hide them
        if (hasMountBelow(all)) return;
        mount(all, all, MS_BIND);
        mount(null, all, MS_PRIVATE); // out of the peer group of the filesystem it is on, which the bind joined
        mount(null, all, MS_SHARED); // then a peer group of its own
    }

    /** Unmounts {@code all} when nothing is mounted under it any more (the kernel refuses while anything is). */
    static void release(Path all) {
        try {
            NativeCall.call("umount2", (s, a) -> (int) Syscalls.UMOUNT2.invokeExact(s, a.allocateFrom(all.toString()), 0));
        } catch (Errno e) {
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
        NativeCall.call("mount " + target, (s, a) -> {
            MemorySegment from = source == null ? MemorySegment.NULL : a.allocateFrom(source.toString());
            return (int) Syscalls.MOUNT.invokeExact(s, from, a.allocateFrom(target.toString()), MemorySegment.NULL, flags, MemorySegment.NULL);
        });
    }
}
