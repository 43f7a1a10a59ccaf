package dev.paddock.driver.browservm;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecResult;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A command running in a tab. Its output arrives with its result (joined from the result's chunks) and is handed
 * to the {@link ExecOutput} then. The driver enforces the timeout (a kill op to the tab); the answer itself is
 * awaited at most the timeout plus a grace, and a vanished tab fails it at once.
 */
final class RemoteExec implements ExecHandle {
    private final BrowserVmSandbox sandbox;
    private final PendingCall call;
    private final long started = System.nanoTime();
    private final Duration bound;
    private final ScheduledFuture<?> timer;
    private volatile boolean timedOut;
    private volatile boolean killed;
    private volatile ExecResult result;
    private volatile RuntimeException failure;

    RemoteExec(BrowserVmSandbox sandbox, PendingCall call, Duration timeout, Duration grace, ExecOutput output, ScheduledExecutorService timers) {
        this.sandbox = sandbox;
        this.call = call;
        this.bound = timeout.plus(grace);
        this.timer = timers.schedule(() -> { timedOut = true; kill(); }, Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        call.future.whenComplete((reply, error) -> {
            timer.cancel(false);
            if (error != null) {
                failure = error instanceof RuntimeException re ? re : PaddockException.internal("exec failed", error);
                return;
            }
            if (reply.stdout().length > 0) output.stdout(reply.stdout(), 0, reply.stdout().length);
            if (reply.stderr().length > 0) output.stderr(reply.stderr(), 0, reply.stderr().length);
            int exit = reply.exitCode() == null ? 255 : reply.exitCode();
            int signal = exit > 128 ? exit - 128 : 0;
            result = new ExecResult(exit, signal, timedOut, false, Duration.ofNanos(System.nanoTime() - started));
        });
    }

    @Override
    public OutputStream stdin() {
        return new OutputStream() {
            @Override public void write(int b) throws IOException {
                throw new IOException("the browser-vm driver takes stdin with the request only, not interactively");
            }
            @Override public void close() {}
        };
    }

    @Override
    public ExecResult await() throws InterruptedException {
        ExecResult r = await(bound);
        if (r == null) throw TabErrors.unresponsive(sandbox.runtime(), call.sandboxId, bound.toSeconds());
        return r;
    }

    @Override
    public ExecResult await(Duration wait) throws InterruptedException {
        try {
            call.future.get(Math.max(0, wait.toMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            // failure is recorded by the completion handler
        }
        // the completion handler runs right after the future completes; wait for its result
        for (int i = 0; i < 1000 && result == null && failure == null; i++) Thread.sleep(1);
        if (failure != null) throw failure;
        return result;
    }

    @Override
    public void kill() {
        if (call.future.isDone() || killed) return;
        killed = true;
        sandbox.tell("kill", Map.of("target_request_id", call.requestId));
    }

    /** Fails the command locally (the sandbox was terminated under it). */
    void abandon(RuntimeException why) {
        timer.cancel(false);
        call.future.completeExceptionally(why);
    }

    boolean done() { return call.future.isDone(); }
}
