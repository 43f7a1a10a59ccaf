package dev.paddock.driver.kubernetes;

import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecResult;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A command running through the exec API. Its timeout counts from the start; past it the command is killed and
 * reported as timed out. Stdin was the request's bytes (see {@link PodExec}), so {@link #stdin()} takes nothing.
 */
final class PodExecHandle implements ExecHandle {
    private static final int SIGKILL = 9;

    private final PodExec exec;
    private final String token;
    private final ExecWatch watch;
    private final long started = System.nanoTime();
    private final long deadline;
    private volatile boolean killed;
    private volatile boolean timedOut;
    private ExecResult result;

    PodExecHandle(PodExec exec, String token, ExecWatch watch, Duration timeout) {
        this.exec = exec;
        this.token = token;
        this.watch = watch;
        this.deadline = started + timeout.toNanos();
    }

    @Override
    public OutputStream stdin() {
        return OutputStream.nullOutputStream();
    }

    @Override
    public ExecResult await() throws InterruptedException {
        while (true) {
            ExecResult r = await(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (r != null) return r;
        }
    }

    @Override
    public synchronized ExecResult await(Duration wait) throws InterruptedException {
        if (result != null) return result;
        long waitNanos = Math.min(wait.toNanos(), Math.max(0, deadline - System.nanoTime()));
        try {
            int code = watch.exitCode().get(waitNanos, TimeUnit.NANOSECONDS);
            return finish(code);
        } catch (TimeoutException notYet) {
            if (System.nanoTime() - deadline < 0) return null;
            timedOut = true;
            kill();
            return finish(128 + SIGKILL);
        } catch (ExecutionException lost) {
            // the stream broke (pod deleted, connection lost): the command is gone with no exit status
            return finish(killed ? 128 + SIGKILL : -1);
        }
    }

    private ExecResult finish(int code) {
        watch.close();
        int signal = code > 128 && code < 128 + 65 ? code - 128 : 0;
        result = new ExecResult(code, signal, timedOut, false, Duration.ofNanos(System.nanoTime() - started));
        return result;
    }

    @Override
    public void kill() {
        if (killed) return;
        killed = true;
        exec.kill(token);
    }
}
