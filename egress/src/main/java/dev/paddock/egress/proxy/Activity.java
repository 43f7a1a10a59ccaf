package dev.paddock.egress.proxy;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The liveness of one client connection: when it started, when bytes last moved, and what to close when a
 * time limit is hit. Closing the channels unblocks any thread reading or writing them.
 */
final class Activity {
    final long startNanos = System.nanoTime();
    private volatile long lastNanos = startNanos;
    private volatile String expired;
    private final List<Closeable> closeables = new CopyOnWriteArrayList<>();

    void touch() { lastNanos = System.nanoTime(); }

    long lastNanos() { return lastNanos; }

    void attach(Closeable c) { closeables.add(c); }

    /** Why the watchdog closed this connection ({@code idle_timeout}, {@code total_timeout}), or null. */
    String expired() { return expired; }

    void expire(String why) {
        expired = why;
        closeAll();
    }

    void closeAll() {
        for (Closeable c : closeables) {
            try {
                c.close();
            } catch (IOException | RuntimeException ignored) {
                // already closed or broken: either way it is gone
            }
        }
    }
}
