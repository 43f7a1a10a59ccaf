package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a sandbox through {@code paddock-init launch}: the launcher binds the socket, joins the cgroups as root,
 * detaches (double fork + setsid), drops to the sandbox uid and execs bwrap. It exits once init inside the sandbox
 * reported on a pipe that it serves, so the first request needs no ping and no polling.
 */
final class SandboxLauncher {
    private SandboxLauncher() {}

    static void launch(Path initBinary, SandboxPaths paths, int uid, int gid, List<Path> cgroupProcs, List<String> bwrapArgs, Duration timeout) {
        List<String> cmd = new ArrayList<>(List.of(initBinary.toString(), "launch", paths.socket().toString(),
                Integer.toString(uid), Integer.toString(gid), paths.log().toString(), paths.pidFile().toString()));
        for (Path p : cgroupProcs) cmd.addAll(List.of("--cgroup", p.toString()));
        cmd.add("--");
        cmd.addAll(bwrapArgs);
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new PaddockException(ErrorType.API, "sandbox_start_failed", "the sandbox did not come up within " + timeout.toMillis() + " ms");
            }
            String err = new String(p.getErrorStream().readNBytes(2048), StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                throw new PaddockException(ErrorType.API, "sandbox_start_failed", "could not start the sandbox: " + Text.clip(err, 400));
            }
        } catch (IOException e) {
            throw new PaddockException(ErrorType.API, "sandbox_start_failed", "could not run " + initBinary + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorType.API, "sandbox_start_failed", "interrupted while starting the sandbox", e);
        }
    }
}
