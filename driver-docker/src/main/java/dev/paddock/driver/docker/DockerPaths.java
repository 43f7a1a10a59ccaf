package dev.paddock.driver.docker;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.nio.file.Path;
import java.util.regex.Pattern;

/** Where one sandbox's files live under the data directory. The id is checked before it becomes a path or a name. */
record DockerPaths(String sandboxId, Path runDir, Path sandboxDir) {
    private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
    /** sun_path holds 108 bytes including the terminating NUL. */
    private static final int MAX_SOCKET_PATH = 107;
    /** Where the control directory appears inside the container (on its private /dev, so images need nothing). */
    static final String CONTROL_DIR = "/dev/.paddock/control";
    static final String SOCKET_NAME = "init.sock";

    static DockerPaths of(Path dataDir, String sandboxId) {
        if (!isSafeId(sandboxId)) {
            throw new PaddockException(ErrorCode.INVALID_SANDBOX_ID, "sandbox ids for the docker driver are 1-64 letters, digits, '_' or '-', got '" + Text.clip(sandboxId, 70) + "'");
        }
        DockerPaths p = new DockerPaths(sandboxId, dataDir.resolve("run").resolve(sandboxId), dataDir.resolve("sandboxes").resolve(sandboxId));
        if (p.socket().toString().length() > MAX_SOCKET_PATH) {
            throw new PaddockException(ErrorCode.DATA_DIR_TOO_LONG, "the docker driver's data directory path is too long for a unix socket path (" + p.socket() + "); use a shorter dataDir");
        }
        return p;
    }

    static boolean isSafeId(String id) {
        return id != null && SAFE_ID.matcher(id).matches();
    }

    /** Bound into the container at {@link #CONTROL_DIR}; init binds its socket there. Owned by the sandbox uid. */
    Path controlDir() { return runDir.resolve("control"); }
    Path socket() { return controlDir().resolve(SOCKET_NAME); }
    Path workspace() { return sandboxDir.resolve("workspace"); }
    Path outputs() { return sandboxDir.resolve("outputs"); }
    /** Upload temporaries and restores being unpacked: on the workspace's filesystem, never bound into the container. */
    Path staging() { return sandboxDir.resolve(".staging"); }
    Path etc() { return sandboxDir.resolve("etc"); }
    Path egressFiles() { return sandboxDir.resolve("egress"); }
}
