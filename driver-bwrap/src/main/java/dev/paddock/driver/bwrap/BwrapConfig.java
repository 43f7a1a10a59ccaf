package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of the bubblewrap driver. {@code dataDir} holds {@code bin/} (the init agent), {@code run/<id>/}
 * (sockets and pid files of live sandboxes, root-only), {@code sandboxes/<id>/workspace} and
 * {@code sandboxes/<id>/etc} (its passwd, group and hosts), {@code etc/base-<hash>} (the host /etc entries sandboxes
 * see), {@code uids/} (which host uid belongs to which sandbox) and {@code images/<name>/rootfs}. Each sandbox runs as its own host uid
 * and gid from {@code [uidBase, uidBase + uidCount)}.
 */
public record BwrapConfig(Path dataDir, int uidBase, int uidCount, Path bwrap, Path cgroupRoot, Duration startTimeout) {
    public static final int DEFAULT_UID_BASE = 200_000;
    public static final int DEFAULT_UID_COUNT = 50_000;

    public BwrapConfig {
        if (dataDir == null) throw new PaddockException(ErrorCode.INVALID_CONFIG, "bwrap driver: dataDir is required");
        dataDir = dataDir.toAbsolutePath().normalize();
        if (uidBase < 1000 || uidCount < 1 || (long) uidBase + uidCount > Integer.MAX_VALUE) {
            throw new PaddockException(ErrorCode.INVALID_CONFIG, "bwrap driver: the uid range must start at 1000 or above and fit in 31 bits");
        }
        bwrap = bwrap == null ? Path.of("/usr/bin/bwrap") : bwrap;
        cgroupRoot = cgroupRoot == null ? Path.of("/sys/fs/cgroup") : cgroupRoot;
        startTimeout = startTimeout == null ? Duration.ofSeconds(10) : startTimeout;
    }

    public static BwrapConfig defaults(Path dataDir) {
        return new BwrapConfig(dataDir, DEFAULT_UID_BASE, DEFAULT_UID_COUNT, null, null, null);
    }

    public BwrapConfig withUidRange(int base, int count) {
        return new BwrapConfig(dataDir, base, count, bwrap, cgroupRoot, startTimeout);
    }
}
