package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a sandbox through {@code paddock-init launch}: the launcher binds the socket, joins the cgroups as root,
 * detaches (double fork + setsid), drops to the sandbox uid and execs bwrap; it exits once init inside the sandbox
 * reported on a pipe that it serves (and bwrap's outer process is gone), so the first request needs no ping and
 * nothing polls. Starting a process from the JVM takes a while, so the caller makes the disk, the cgroups and the
 * workspace meanwhile and then says {@link #proceed}; the launcher joins the cgroups and forks only after that. Then
 * the caller {@link #await}s the end.
 */
final class SandboxLauncher {
    private final Process process;
    private final Path initBinary;

    private SandboxLauncher(Process process, Path initBinary) {
        this.process = process;
        this.initBinary = initBinary;
    }

    /**
     * With {@code ownMounts} (from {@link LaunchNamespace#launchArgs}), bwrap starts in a mount namespace without the
     * other sandboxes' mounts (their disk images): it copies the namespace it starts in and reads its whole mount
     * table for every bind it makes.
     */
    static SandboxLauncher start(Path initBinary, SandboxPaths paths, int uid, int gid, List<Path> cgroupJoinFiles, List<String> ownMounts,
            List<String> bwrapArgs) {
        List<String> cmd = new ArrayList<>(List.of(initBinary.toString(), "launch", paths.socket().toString(),
                Integer.toString(uid), Integer.toString(gid), paths.log().toString(), paths.pidFile().toString()));
        for (Path p : cgroupJoinFiles) cmd.addAll(List.of("--join", p.toString()));
        cmd.addAll(ownMounts);
        // the seccomp filter at fd 5, where bwrap reads it (BwrapArgs always passes --seccomp SECCOMP_FD)
        cmd.add("--seccomp");
        cmd.add("--");
        cmd.addAll(bwrapArgs);
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return new SandboxLauncher(p, initBinary);
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "could not run " + initBinary + ": " + e.getMessage(), e);
        }
    }

    /** Tells the launcher that the workspace and the cgroups exist: only then does it start bwrap. */
    void proceed() {
        try (OutputStream go = process.getOutputStream()) {
            go.write('g');
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "the sandbox launcher went away: " + e.getMessage(), e);
        }
    }

    /** Returns once init serves; throws sandbox_start_failed with the launcher's reason otherwise. */
    void await(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                abort();
                throw new PaddockException(ErrorCode.SANDBOX_START_TIMEOUT, "the sandbox did not come up within " + timeout.toMillis()
                        + " ms; the host is busy");
            }
            String err = new String(process.getErrorStream().readNBytes(2048), StandardCharsets.UTF_8).trim();
            if (process.exitValue() != 0) throw StartFailure.of("could not start the sandbox: " + Text.clip(err, 400));
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "could not read the output of " + initBinary + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            abort();
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "interrupted while starting the sandbox", e);
        }
    }

    /** Kills the launcher and waits for it; what it started already is in the cgroups, which the caller cleans up. */
    void abort() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
