package dev.paddock.driver.docker;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Settings of the Docker driver. {@code dockerHost} is the engine's unix socket ({@code unix:///path});
 * {@code runtime} the OCI runtime containers run with ({@code runc}, or {@code runsc} for gVisor; it must be
 * registered with the engine). Every sandbox runs as the one unprivileged host uid and gid {@code uid}: containers
 * share no files but what is mounted into each, and the workspace is owned by that uid. From {@code dataDir} the
 * driver reads {@code images/<name>/rootfs} and installs the init agent in {@code bin/}; its own state is under
 * {@link #stateDir()}, {@code <dataDir>/docker}, apart from other drivers on the same data directory:
 * {@code run/<id>/} (the control socket's directory), {@code sandboxes/<id>/} (workspace, outputs, /etc and egress
 * files) and {@code etc/} (the shared part of the host-root /etc).
 */
public record DockerConfig(Path dataDir, String dockerHost, String runtime, int uid, Duration startTimeout) {
    public static final String DEFAULT_HOST = "unix:///var/run/docker.sock";
    public static final String DEFAULT_RUNTIME = "runc";
    /** gVisor's runtime: limits that count processes are applied inside its kernel rather than on the host. */
    public static final String GVISOR = "runsc";
    /** Outside the bwrap driver's default range (200000 and up) and every distribution's system and user ranges. */
    public static final int DEFAULT_UID = 190_000;
    private static final Pattern RUNTIME_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    public DockerConfig {
        if (dataDir == null) throw new PaddockException(ErrorCode.INVALID_CONFIG, "docker driver: dataDir is required");
        dataDir = dataDir.toAbsolutePath().normalize();
        dockerHost = dockerHost == null || dockerHost.isBlank() ? DEFAULT_HOST : dockerHost;
        DockerEngine.socketOf(dockerHost);
        runtime = runtime == null || runtime.isBlank() ? DEFAULT_RUNTIME : runtime;
        if (!RUNTIME_NAME.matcher(runtime).matches()) {
            throw new PaddockException(ErrorCode.INVALID_CONFIG, "docker driver: the runtime must be a name such as runc or runsc");
        }
        if (uid < 1000) throw new PaddockException(ErrorCode.INVALID_CONFIG, "docker driver: the sandbox uid must be 1000 or above (an unprivileged uid)");
        startTimeout = startTimeout == null ? Duration.ofSeconds(30) : startTimeout;
    }

    /** The engine from {@code $DOCKER_HOST} (else {@value #DEFAULT_HOST}), runtime {@value #DEFAULT_RUNTIME}. */
    public static DockerConfig defaults(Path dataDir) {
        return new DockerConfig(dataDir, System.getenv("DOCKER_HOST"), DEFAULT_RUNTIME, DEFAULT_UID, null);
    }

    /** Where the driver keeps its sandboxes' files, beside other drivers' under the same data directory. */
    public Path stateDir() {
        return dataDir.resolve("docker");
    }

    public DockerConfig withRuntime(String name) {
        return new DockerConfig(dataDir, dockerHost, name, uid, startTimeout);
    }
}
