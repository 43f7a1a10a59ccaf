package dev.paddock.host;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Driver calls under the per-operation timeout: each runs on a virtual thread of its own, and a caller that waited
 * the timeout gets {@code operation_timeout} while the call is cancelled. Also the one place that turns what a call
 * threw into the API's error.
 */
final class Operations implements AutoCloseable {
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Duration timeout;

    Operations(Duration timeout) {
        this.timeout = timeout;
    }

    /** Runs a driver call under the per-operation timeout. */
    <T> T bounded(String op, Callable<T> call) {
        Future<T> f = threads.submit(call);
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new PaddockException(ErrorCode.OPERATION_TIMEOUT, op + " did not finish within " + timeout.toSeconds() + "s");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) throw re;
            throw asPaddock(op, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, op + " was interrupted; retry");
        }
    }

    /** {@code e} as the API's error: itself when it is one, else an internal error naming {@code op}. */
    static PaddockException asPaddock(String op, Throwable e) {
        if (e instanceof PaddockException pe) return pe;
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new PaddockException(ErrorCode.INTERRUPTED, "the server is shutting down; retry");
        }
        return PaddockException.internal(op + " failed: " + e.getClass().getSimpleName(), e);
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
