package dev.paddock.driver.gvisor;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The runsc command line for one data directory. Every call names the same state root and global flags (no network
 * but loopback, host unix sockets allowed: the control socket and the egress proxy's, the platform), so a restarted
 * host finds its containers again. Starting and restoring go through setsid with stdio on a file: runsc run -detach
 * leaves the sandbox holding the caller's stdio otherwise.
 */
final class Runsc {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final File DEV_NULL = new File("/dev/null");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** A container's state as runsc reports it: created, running, paused or stopped. */
    record State(String status, long pid) {
        boolean running() { return status.equals("running"); }
        boolean paused() { return status.equals("paused"); }
    }

    private final Path runsc;
    private final Path stateRoot;
    private final String platform;

    Runsc(Path runsc, Path stateRoot, String platform) {
        this.runsc = runsc;
        this.stateRoot = stateRoot;
        this.platform = platform;
    }

    /** Starts the bundle's init detached; returns once the container runs. */
    void run(String id, Path bundle, Path log, boolean overlay, Duration timeout) {
        detached(overlay, log, timeout, ErrorCode.SANDBOX_START_FAILED, "run", "-detach", "-bundle", bundle.toString(), id);
    }

    /** Starts the container from a checkpoint image; returns once its processes run again. */
    void restore(String id, Path bundle, Path imageDir, Path log, boolean overlay, Duration timeout) {
        detached(overlay, log, timeout, ErrorCode.SANDBOX_START_FAILED, "restore", "-detach", "-bundle", bundle.toString(), "-image-path", imageDir.toString(), id);
    }

    /**
     * Saves the container's processes into {@code imageDir}; the container stops. (runsc's own -leave-running waits
     * for the container restarted from the image to end, so the driver restores it itself instead.)
     */
    void checkpoint(String id, Path imageDir, boolean overlay, Path log) {
        detached(overlay, log, CALL_TIMEOUT, ErrorCode.CHECKPOINT_FAILED, "checkpoint", "-image-path", imageDir.toString(), id);
    }

    /** Removes a stopped container's state (and its cgroups), so its id can be restored again. */
    void delete(String id, boolean overlay) {
        call(overlay, "delete", id);
    }

    void pause(String id, boolean overlay) {
        call(overlay, "pause", id);
    }

    void resume(String id, boolean overlay) {
        call(overlay, "resume", id);
    }

    /** Sends a signal to the container's init (pid 1 inside). */
    void signalInit(String id, String signal, boolean overlay) {
        call(overlay, "kill", id, signal);
    }

    /** Ends the container and removes its state and cgroups; quiet when it is already gone. */
    void deleteForce(String id, boolean overlay) {
        tryCall(overlay, "delete", "-force", id);
    }

    Optional<State> state(String id, boolean overlay) {
        return tryCall(overlay, "state", id).map(out -> {
            JsonNode n = JSON.readTree(out);
            return new State(n.path("status").asString(""), n.path("pid").asLong(-1));
        });
    }

    /** One sample of the container's cgroup statistics ({@code runsc events --stats}). */
    Optional<JsonNode> stats(String id, boolean overlay) {
        return tryCall(overlay, "events", "-stats", id).map(out -> JSON.readTree(out).path("data"));
    }

    /** Runs one command through runsc exec and returns its exit code; for measuring it against the init agent. */
    int exec(String id, boolean overlay, int uid, String cwd, List<String> argv) {
        List<String> args = new ArrayList<>(List.of("exec", "-user", uid + ":" + uid, "-cwd", cwd, id));
        args.addAll(argv);
        return run(command(overlay, args.toArray(String[]::new)), CALL_TIMEOUT).exit;
    }

    private record Outcome(int exit, String out, String err) {}

    private List<String> command(boolean overlay, String... args) {
        List<String> cmd = new ArrayList<>(List.of(runsc.toString(), "--root", stateRoot.toString(),
                "--network=none", "--host-uds=all", "--platform=" + platform));
        if (overlay) cmd.add("--overlay2=root:memory");
        cmd.addAll(List.of(args));
        return cmd;
    }

    private void detached(boolean overlay, Path log, Duration timeout, ErrorCode failure, String... args) {
        List<String> cmd = new ArrayList<>(List.of("setsid"));
        cmd.addAll(command(overlay, args));
        try {
            Process p = new ProcessBuilder(cmd).redirectInput(DEV_NULL)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                // a start that outlasts its timeout is a busy host, which a client retries
                ErrorCode late = failure == ErrorCode.SANDBOX_START_FAILED ? ErrorCode.SANDBOX_START_TIMEOUT : failure;
                throw new PaddockException(late, "runsc " + args[0] + " did not finish within " + timeout.toMillis() + " ms");
            }
            if (p.exitValue() != 0) {
                throw new PaddockException(failure, "runsc " + args[0] + " failed (exit " + p.exitValue() + "): " + tail(log));
            }
        } catch (IOException e) {
            throw new PaddockException(failure, "could not run " + runsc + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(failure, "interrupted while runsc " + args[0] + " ran", e);
        }
    }

    static String tail(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8).trim();
            return Text.clip(text.substring(Math.max(0, text.length() - 400)), 400);
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private String call(boolean overlay, String... args) {
        Outcome o = run(command(overlay, args), CALL_TIMEOUT);
        if (o.exit != 0) {
            throw PaddockException.internal("runsc " + args[0] + " failed (exit " + o.exit + "): " + Text.clip(o.err.trim(), 400), null);
        }
        return o.out;
    }

    private Optional<String> tryCall(boolean overlay, String... args) {
        Outcome o = run(command(overlay, args), CALL_TIMEOUT);
        return o.exit == 0 ? Optional.of(o.out) : Optional.empty();
    }

    private Outcome run(List<String> cmd, Duration timeout) {
        try {
            Process p = new ProcessBuilder(cmd).redirectInput(DEV_NULL).start();
            // waited for before reading, so a hung runsc cannot hold the caller: these commands answer in a few
            // hundred bytes (state, one stats sample, an error line), well within a pipe's buffer
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw PaddockException.internal("runsc did not finish within " + timeout.toSeconds() + " s: " + String.join(" ", cmd), null);
            }
            byte[] out = p.getInputStream().readAllBytes();
            byte[] err = p.getErrorStream().readNBytes(8192);
            return new Outcome(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw PaddockException.internal("could not run " + runsc + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw PaddockException.internal("interrupted while running runsc", e);
        }
    }
}
