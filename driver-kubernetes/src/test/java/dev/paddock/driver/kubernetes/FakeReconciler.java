package dev.paddock.driver.kubernetes;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the FAKE controllers reconcile: one at a time, and a reconcile that fails (a 409 from a concurrent write, say)
 * is logged and run again after a back-off, as controller-runtime requeues it. Waiting for the next event instead
 * would wedge an object that gets none (an unbound claim stays unbound). Nothing runs once closed.
 */
final class FakeReconciler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FakeReconciler.class);
    private static final long FIRST_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 1_000;

    private final String controller;
    private final ScheduledExecutorService requeue;
    private boolean closed;

    FakeReconciler(String controller) {
        this.controller = controller;
        this.requeue = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(controller + "-requeue").factory());
    }

    /** Runs {@code reconcile} now, and again until it succeeds or this is closed. */
    void run(String what, Runnable reconcile) {
        attempt(what, reconcile, FIRST_BACKOFF_MS);
    }

    private synchronized void attempt(String what, Runnable reconcile, long backoffMs) {
        if (closed) return;
        try {
            reconcile.run();
        } catch (RuntimeException e) {
            LOG.warn("{}: reconciling {} failed, again in {} ms", controller, what, backoffMs, e);
            requeue.schedule(() -> attempt(what, reconcile, Math.min(backoffMs * 2, MAX_BACKOFF_MS)), backoffMs, TimeUnit.MILLISECONDS);
        }
    }

    /** Waits for a reconcile under way, so nothing of the controller talks to the API server once it is closed. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        requeue.shutdownNow();
    }
}
