package dev.paddock.images;

import dev.paddock.core.MountTable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Finds and lazily unmounts mounts left under a build directory (debootstrap mounts /proc and /sys in its target
 * and a killed run may leave them), so that deleting the directory can never reach into the host's /proc or /sys.
 */
final class Mounts {
    private Mounts() {}

    static List<Path> under(Path dir) {
        String prefix = dir.toAbsolutePath().normalize() + "/";
        // no mount table: nothing found; the device check in RootfsTrees still refuses to cross mounts
        return MountTable.read().stream().map(MountTable.Mount::point).filter(p -> p.toString().startsWith(prefix))
                .sorted(Comparator.comparingInt(Path::getNameCount).reversed()) // deepest first
                .toList();
    }

    static void unmountUnder(Path dir) {
        for (Path mountPoint : under(dir)) {
            try {
                Process p = new ProcessBuilder("umount", "-l", mountPoint.toString())
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!p.waitFor(30, TimeUnit.SECONDS)) p.destroyForcibly();
            } catch (IOException e) {
                // umount missing: the later delete refuses to cross the mount and reports it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
