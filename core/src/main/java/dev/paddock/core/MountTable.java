package dev.paddock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** This process's mounts, from {@code /proc/self/mountinfo}: where each one is and its filesystem's type. */
public final class MountTable {
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

    public record Mount(Path point, String fsType) {}

    private MountTable() {}

    /** The mounts now; none when the table cannot be read. */
    public static List<Mount> read() {
        try {
            return parse(Files.readAllLines(MOUNTINFO));
        } catch (IOException | UncheckedIOException e) {
            return List.of();
        }
    }

    /** Each line: its fifth field is the mount point; the first field after the {@code " - "} separator, the type. */
    static List<Mount> parse(List<String> lines) {
        List<Mount> out = new ArrayList<>();
        for (String line : lines) {
            int sep = line.indexOf(" - ");
            if (sep < 0) continue;
            String[] fields = line.substring(0, sep).split(" ");
            if (fields.length < 5) continue;
            out.add(new Mount(Path.of(unescape(fields[4])), line.substring(sep + 3).split(" ", 2)[0]));
        }
        return out;
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
