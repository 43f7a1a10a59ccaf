package dev.paddock.store;

import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A database's switch that refuses every later write for good (see {@link Database#stopWrites}), and the question
 * asked around each write that may throw it ({@link Database#guardWrites}).
 */
final class WriteStop {
    private static final Logger LOG = LoggerFactory.getLogger(WriteStop.class);
    private volatile String stoppedBecause;
    /** Set while writes wait for something that can end (a node rejoining its cluster); cleared by {@link #resume}. */
    private volatile String pausedBecause;
    private volatile Supplier<String> guard = () -> null;

    void guard(Supplier<String> problem) {
        this.guard = problem;
    }

    void stop(String reason) {
        if (stoppedBecause == null) LOG.error("store writes stopped: {}", reason);
        stoppedBecause = reason;
    }

    void pause(String reason) {
        if (pausedBecause == null) LOG.warn("store writes paused: {}", reason);
        pausedBecause = reason;
    }

    void resume() {
        if (pausedBecause != null) LOG.info("store writes resumed");
        pausedBecause = null;
    }

    /** Asks the guard, and throws {@code store_writes_stopped} once writes are stopped or while they are paused. */
    void check() {
        String problem = guard.get();
        if (problem != null) stop(problem);
        if (stoppedBecause != null) throw StoreErrors.stopped(stoppedBecause);
        String paused = pausedBecause;
        if (paused != null) throw StoreErrors.stopped(paused);
    }
}
