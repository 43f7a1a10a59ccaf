package dev.paddock.driver.bwrap.disk;

import java.nio.file.Path;

/** Test access to package-private helpers. */
public final class DiskQuotaAccess {
    private DiskQuotaAccess() {}

    public static boolean isMountPoint(Path dir) {
        return LoopImageQuota.isMountPoint(dir);
    }
}
