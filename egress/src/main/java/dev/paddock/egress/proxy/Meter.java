package dev.paddock.egress.proxy;

import java.util.concurrent.atomic.AtomicLong;

/** Bytes sent to and received from a destination. */
final class Meter {
    private final AtomicLong up = new AtomicLong();
    private final AtomicLong down = new AtomicLong();

    void addUp(long n) { up.addAndGet(n); }

    void addDown(long n) { down.addAndGet(n); }

    long up() { return up.get(); }

    long down() { return down.get(); }
}
