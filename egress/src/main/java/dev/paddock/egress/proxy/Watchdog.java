package dev.paddock.egress.proxy;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Enforces idle and total time limits on every connection by closing its channels. Unix-domain channels have
 * no read timeout, so one ticking thread does the job for all of them, and a TCP connection is treated the same.
 */
final class Watchdog implements AutoCloseable {
    private final long idleNanos;
    private final long totalNanos;
    private final Set<Activity> active = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticker;

    Watchdog(Duration idle, Duration total) {
        this.idleNanos = idle.toNanos();
        this.totalNanos = total.toNanos();
        this.ticker = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-egress-watchdog").factory());
        long period = Math.max(20, Math.min(1000, idle.toMillis() / 4));
        ticker.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    Activity start() {
        Activity a = new Activity();
        active.add(a);
        return a;
    }

    void finish(Activity a) {
        active.remove(a);
    }

    int activeCount() { return active.size(); }

    private void tick() {
        long now = System.nanoTime();
        for (Activity a : active) {
            if (now - a.startNanos > totalNanos) {
                active.remove(a);
                a.expire("total_timeout");
            } else if (now - a.lastNanos() > idleNanos) {
                active.remove(a);
                a.expire("idle_timeout");
            }
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        for (Activity a : active) a.closeAll();
        active.clear();
    }
}
