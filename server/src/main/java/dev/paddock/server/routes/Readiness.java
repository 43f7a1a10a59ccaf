package dev.paddock.server.routes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this server can serve now, for {@code GET /v1/health/ready}: its store answers a short query and takes
 * writes. One check runs at a time, on a thread of its own, and its answer is kept for {@link #KEEP}; a caller waits
 * for it at most {@link #WAIT}, so a store that hangs (PostgreSQL that stopped answering, a pool waiting for a
 * connection) makes the answer "not ready" in bounded time and never piles up threads: while a check is still
 * running past the wait, callers are answered at once.
 */
final class Readiness {
    private static final Logger LOG = LoggerFactory.getLogger(Readiness.class);
    static final Duration KEEP = Duration.ofSeconds(1);
    static final Duration WAIT = Duration.ofSeconds(2);
    /** A check still running after this is given up (its thread left to end by itself) and a new one starts. */
    static final Duration GIVE_UP = Duration.ofSeconds(15);

    /** Not ready: which component, and the error it answered. */
    record Problem(String component, ErrorCode code, String message) {}

    private final Runnable storeCheck;
    private Problem last;
    private long lastAt;
    private boolean checked;
    private CompletableFuture<Problem> running;
    private long runningSince;

    Readiness(Runnable storeCheck) {
        this.storeCheck = storeCheck;
    }

    /** Null when ready, else what is not. */
    Problem problem() {
        CompletableFuture<Problem> check;
        synchronized (this) {
            long now = System.nanoTime();
            if (checked && now - lastAt < KEEP.toNanos()) return last;
            if (running == null || now - runningSince > GIVE_UP.toNanos()) {
                running = new CompletableFuture<>();
                runningSince = now;
                CompletableFuture<Problem> started = running;
                Thread.ofVirtual().name("paddock-readiness").start(() -> finish(started, check()));
            } else if (now - runningSince > WAIT.toNanos()) {
                return hung();
            }
            check = running;
        }
        try {
            return check.get(WAIT.toNanos() - (System.nanoTime() - runningSince), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return hung();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return hung();
        } catch (ExecutionException e) {
            return new Problem("store", ErrorCode.STORE_UNAVAILABLE, "the store's readiness check failed");
        }
    }

    private static Problem hung() {
        return new Problem("store", ErrorCode.STORE_UNAVAILABLE, "the store did not answer a readiness check within "
                + WAIT.toSeconds() + " s");
    }

    private Problem check() {
        try {
            storeCheck.run();
            return null;
        } catch (PaddockException e) {
            return new Problem("store", e.errorCode(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("readiness check of the store failed", e);
            return new Problem("store", ErrorCode.STORE_UNAVAILABLE, "the store's readiness check failed");
        }
    }

    private void finish(CompletableFuture<Problem> check, Problem result) {
        synchronized (this) {
            last = result;
            lastAt = System.nanoTime();
            checked = true;
            if (running == check) running = null;
        }
        if (result != null) LOG.warn("not ready: {} {}: {}", result.component(), result.code().wire(), result.message());
        check.complete(result);
    }
}
