package dev.paddock.driver.gvisor;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where one sandbox's files live under the data directory. The id is checked before it becomes a path. The run
 * directory ends with the runtime (bundle, control socket, log, meta); the sandbox directory holds what outlives it.
 */
record GvisorPaths(String sandboxId, Path runDir, Path sandboxDir) {
    private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
    /** sun_path holds 108 bytes including the terminating NUL. */
    private static final int MAX_SOCKET_PATH = 107;
    /** Inside the sandbox: /dev is the sandbox's own tmpfs, so the mount point needs nothing from the root. */
    static final String CONTROL_DIR = "/dev/.paddock/ctl";
    static final String SOCKET_NAME = "init.sock";

    static GvisorPaths of(Path dataDir, String sandboxId) {
        if (!isSafeId(sandboxId)) {
            throw new PaddockException(ErrorCode.INVALID_SANDBOX_ID, "sandbox ids for the gvisor driver are 1-64 letters, digits, '_' or '-', got '" + Text.clip(sandboxId, 70) + "'");
        }
        GvisorPaths p = new GvisorPaths(sandboxId, dataDir.resolve("run").resolve(sandboxId), dataDir.resolve("sandboxes").resolve(sandboxId));
        if (p.socket().toString().length() > MAX_SOCKET_PATH) {
            throw new PaddockException(ErrorCode.DATA_DIR_TOO_LONG, "the gvisor driver's data directory path is too long for a unix socket path (" + p.socket() + "); use a shorter dataDir");
        }
        return p;
    }

    static boolean isSafeId(String id) {
        return id != null && SAFE_ID.matcher(id).matches();
    }

    /** The OCI bundle: config.json here, the root filesystem elsewhere (an absolute root.path). */
    Path bundle() { return runDir; }
    Path meta() { return runDir.resolve("sandbox.properties"); }
    /** The container's stdout and stderr (init's notes). */
    Path log() { return runDir.resolve("init.log"); }
    /** Bound read-write at {@link #CONTROL_DIR}: init binds its control socket there, reachable from the host. */
    Path controlDir() { return runDir.resolve("ctl"); }
    Path socket() { return controlDir().resolve(SOCKET_NAME); }
    /** Made by init once it closed every host socket (see paddock-init.c, quiesce). */
    Path quiescedMark() { return controlDir().resolve(SOCKET_NAME + ".quiesced"); }
    Path workspace() { return sandboxDir.resolve("workspace"); }
    Path outputs() { return sandboxDir.resolve("outputs"); }
    Path staging() { return sandboxDir.resolve(".staging"); }
    Path etc() { return sandboxDir.resolve("etc"); }
    Path egressFiles() { return sandboxDir.resolve("egress"); }
}
