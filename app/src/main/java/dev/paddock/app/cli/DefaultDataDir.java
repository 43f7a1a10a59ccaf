package dev.paddock.app.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;

/**
 * Where the data directory is when none is configured; the server and the CLI agree on it. A class of its own, with
 * nothing but the JDK, because the client jar carries the CLI's classes only: the server's {@code DataDir} needs more
 * than the client jar has, and loading it there failed every client command that read its defaults.
 */
public final class DefaultDataDir {
    /** Where the data directory goes when none is configured and the home directory is closed to other users. */
    public static final Path SYSTEM_DEFAULT = Path.of("/var/lib/paddock");

    private DefaultDataDir() {}

    /**
     * {@code ~/.paddock}, unless the home directory is closed to other users (as root's {@code /root} is, mode 0700):
     * sandboxes run as their own uids and must pass through the data directory's parents to reach their workspace,
     * so then it is {@link #SYSTEM_DEFAULT}.
     */
    public static Path of(Path home) {
        try {
            var mode = Files.getPosixFilePermissions(home);
            if (!mode.contains(PosixFilePermission.OTHERS_EXECUTE)) return SYSTEM_DEFAULT;
        } catch (IOException | UnsupportedOperationException e) {
            // no home to look at: keep the usual place
        }
        return home.resolve(".paddock");
    }
}
