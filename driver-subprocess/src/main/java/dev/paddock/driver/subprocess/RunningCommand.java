package dev.paddock.driver.subprocess;

import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One started host process: two virtual threads pump stdout and stderr to the {@link ExecOutput}, a third
 * enforces the timeout (killing the whole process tree) and completes the result once all output was delivered.
 */
final class RunningCommand implements ExecHandle {
    private static final Logger LOG = LoggerFactory.getLogger(RunningCommand.class);
    private static final int SIGKILL = 9;

    private final Process process;
    private final Instant startedAt = Instant.now();
    private final CompletableFuture<ExecResult> result = new CompletableFuture<>();
    private volatile boolean killed;

    RunningCommand(Process process, ExecOutput output, byte[] stdin, Duration timeout, Runnable onExit) {
        this.process = process;
        Thread out = Thread.ofVirtual().start(() -> pump(process.getInputStream(), output, false));
        Thread err = Thread.ofVirtual().start(() -> pump(process.getErrorStream(), output, true));
        feed(stdin);
        Thread.ofVirtual().start(() -> {
            try {
                boolean timedOut = !process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (timedOut) ProcessTree.kill(process.toHandle());
                int exit = process.waitFor();
                // a background child may keep the pipes open: wait for the output only until the deadline
                Duration left = timeout.minus(Duration.between(startedAt, Instant.now()));
                if (left.isNegative()) left = Duration.ZERO;
                out.join(left);
                err.join(left.isZero() ? Duration.ofMillis(1) : left);
                boolean byUs = timedOut || killed;
                // Java reports death by signal as 128 + signal; a plain exit(130) looks the same, so only trust it
                // when we sent the signal ourselves or the value is in the signal range
                int signal = byUs ? SIGKILL : exit > 128 && exit < 128 + 65 ? exit - 128 : 0;
                result.complete(new ExecResult(exit, signal, timedOut, false, Duration.between(startedAt, Instant.now())));
            } catch (InterruptedException e) {
                ProcessTree.kill(process.toHandle());
                result.completeExceptionally(e);
            } finally {
                onExit.run();
            }
        });
    }

    long pid() { return process.pid(); }

    Instant startedAt() { return startedAt; }

    boolean isRunning() { return !result.isDone(); }

    Integer exitCode() { return result.isDone() && !result.isCompletedExceptionally() ? result.join().exitCode() : null; }

    ProcessHandle handle() { return process.toHandle(); }

    /** Writes the request's stdin and closes it; null means an empty stdin. */
    private void feed(byte[] stdin) {
        if (stdin == null || stdin.length == 0) {
            closeQuietly(process.getOutputStream());
            return;
        }
        Thread.ofVirtual().start(() -> {
            try (OutputStream in = process.getOutputStream()) {
                in.write(stdin);
            } catch (IOException e) {
                // the command exited without reading all of its stdin: not an error of ours
            }
        });
    }

    private static void pump(InputStream from, ExecOutput to, boolean isStderr) {
        byte[] buffer = new byte[8192];
        try (from) {
            for (int n; (n = from.read(buffer)) >= 0; ) {
                try {
                    if (isStderr) to.stderr(buffer, 0, n);
                    else to.stdout(buffer, 0, n);
                } catch (RuntimeException e) {
                    LOG.warn("an exec output consumer threw; its output is dropped", e);
                }
            }
        } catch (IOException e) {
            // the stream closed because the process was killed
        }
    }

    private static void closeQuietly(OutputStream out) {
        try {
            out.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public OutputStream stdin() {
        return process.getOutputStream();
    }

    @Override
    public ExecResult await() throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("waiting for the command failed", e.getCause());
        }
    }

    @Override
    public ExecResult await(Duration wait) throws InterruptedException {
        try {
            return result.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            throw new IllegalStateException("waiting for the command failed", e.getCause());
        }
    }

    @Override
    public void kill() {
        if (result.isDone()) return;
        killed = true;
        ProcessTree.kill(process.toHandle());
    }
}
