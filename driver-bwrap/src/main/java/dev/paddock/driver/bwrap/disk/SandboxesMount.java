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
 * it, shared, in a peer group of its own (not the one of the filesystem it is on), so that every disk image is a child
 * of that one mount. Two things rest on that. The launch mount namespace (LaunchNamespace, mountns_main in
 * paddock-init.c) takes every sandbox out by detaching its copy of this mount once, and then no disk mounted later
 * reaches it or the launchers' copies of it, although they are slaves of the host's namespace; without this mount
 * each disk would be mounted on the filesystem the directory is on and, where that is shared, reach them all again.
 * And a namespace that is a slave of the host's and still holds another data directory's disks (a launch namespace
 * made while they were mounted, or a container engine's) loses them when their host unmounts them, whether or not
 * the filesystem underneath is shared: an image is never held mounted twice, nor its loop device kept, by a namespace
 * its owner does not know of. The mount goes again when the last disk under it does, so nothing is left mounted
 * once no sandbox has a disk.
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
