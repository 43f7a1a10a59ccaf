package dev.paddock.app.serve;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Says plainly when the disk under the data directory is full, the usual reason a start-up cannot write. */
final class DiskSpace {
    static final long NEARLY_FULL = 4L << 20;

    private DiskSpace() {}

    /** A message naming the full disk, or null when it has room (or cannot be asked). */
    static String fullMessage(Path dataDir) {
        try {
            long free = Files.getFileStore(dataDir).getUsableSpace();
            if (free >= NEARLY_FULL) return null;
            return "Paddock cannot write to its data directory " + dataDir + ": the disk that holds it is full (" + free
                    + " bytes free); free space there and start again";
        } catch (IOException e) {
            return null;
        }
    }
}
