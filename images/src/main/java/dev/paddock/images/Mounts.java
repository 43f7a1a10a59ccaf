package dev.paddock.images;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
        List<Path> found = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] fields = line.split(" ");
                if (fields.length < 5) continue;
                String mountPoint = unescape(fields[4]);
                if (mountPoint.startsWith(prefix)) found.add(Path.of(mountPoint));
            }
        } catch (IOException e) {
            // no mountinfo: nothing we can do; the device check in RootfsTrees still refuses to cross mounts
        }
        found.sort(Comparator.comparingInt(Path::getNameCount).reversed()); // deepest first
        return found;
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

    /** mountinfo escapes space, tab, newline and backslash as octal. */
    private static String unescape(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length()) {
                try {
                    out.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                    i += 3;
                    continue;
                } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                    // not an escape: keep the backslash
                }
            }
            out.append(c);
        }
        return out.toString();
    }
}
