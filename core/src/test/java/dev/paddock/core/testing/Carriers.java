package dev.paddock.core.testing;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The virtual-thread scheduler's carriers, for tests that hold native code on more of them than there are. */
public final class Carriers {
    private Carriers() {}

    /** How many carrier threads run virtual threads: the scheduler's parallelism, by default the cores. */
    public static int count() {
        return Integer.getInteger("jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
    }

    /** Whether a new virtual thread gets to run within {@code wait}: false when every carrier is held. */
    public static boolean aVirtualThreadRunsWithin(Duration wait) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        Thread.ofVirtual().start(ran::countDown);
        return ran.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    }
}
