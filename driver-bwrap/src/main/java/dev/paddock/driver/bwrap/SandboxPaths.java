package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.init.SandboxDirs;
import java.nio.file.Path;

/** Where one sandbox's files live under the data directory. The id is checked before it becomes a path. */
record SandboxPaths(String sandboxId, Path runDir, Path sandboxDir) {
    /** sun_path holds 108 bytes including the terminating NUL. */
    private static final int MAX_SOCKET_PATH = 107;

    static SandboxPaths of(Path dataDir, String sandboxId) {
        if (!isSafeId(sandboxId)) {
            throw new PaddockException(ErrorCode.INVALID_SANDBOX_ID, "sandbox ids for the bwrap driver are 1-64 letters, digits, '_' or '-', got '" + Text.clip(sandboxId, 70) + "'");
        }
        SandboxPaths p = new SandboxPaths(sandboxId, dataDir.resolve("run").resolve(sandboxId), dataDir.resolve("sandboxes").resolve(sandboxId));
        if (p.socket().toString().length() > MAX_SOCKET_PATH) {
            throw new PaddockException(ErrorCode.DATA_DIR_TOO_LONG, "the bwrap driver's data directory path is too long for a unix socket path (" + p.socket() + "); use a shorter dataDir");
        }
        return p;
    }

    static boolean isSafeId(String id) {
        return SandboxDirs.isSafeId(id);
    }

    Path socket() { return runDir.resolve("init.sock"); }
    Path log() { return runDir.resolve("init.log"); }
    Path pidFile() { return runDir.resolve("init.pid"); }
    Path meta() { return runDir.resolve("sandbox.properties"); }
    Path workspace() { return sandboxDir.resolve("workspace"); }
    /** Bound read-write at /mnt/session/outputs; kept after the sandbox ends, like the workspace. */
    Path outputs() { return sandboxDir.resolve("outputs"); }
    /**
     * Upload temporaries and restores being unpacked (see HostDirWorkspace): on the workspace's filesystem (inside the
     * sandbox's disk image when it has one), never bound into the sandbox.
     */
    Path staging() { return sandboxDir.resolve(".staging"); }
    /** The generated part of the sandbox's /etc; outside the workspace so the sandbox cannot change it. */
    Path etc() { return sandboxDir.resolve("etc"); }
    /** The CA bundle of a sandbox with egress; readable by its uid (bwrap opens it), outside its workspace. */
    Path egressFiles() { return sandboxDir.resolve("egress"); }
}
