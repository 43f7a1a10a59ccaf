package dev.paddock.core;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Runs native code (an FFM downcall, a JNI library such as SQLite's) off a virtual thread's carrier. Native code
 * pins the carrier for as long as it runs, and the server's requests run on virtual threads over one carrier per
 * core: two requests in a slow native call (fsync, a lock wait) held every carrier and stalled every other request.
 * On a virtual thread the work runs on a platform thread while the virtual thread waits unmounted; on a platform
 * thread it runs where it is.
 */
public final class OffCarrier {
    /**
     * Unbounded (idle threads end after a minute): a bounded pool could deadlock where one piece of work waits for
     * another to run (a read from a pipe whose writer is queued).
     */
    private static final ExecutorService PLATFORM = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("off-carrier-", 0).factory());

    private OffCarrier() {}

    /**
     * Runs {@code work} and returns its result or throws what it threw. The wait ignores interrupts until the work
     * is done (its result may be a descriptor or a commit that must not be lost), then restores the interrupt.
     */
    public static <T> T run(Supplier<T> work) {
        if (!Thread.currentThread().isVirtual()) return work.get();
        Future<T> result = PLATFORM.submit(work::get);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException r) throw r;
                    if (e.getCause() instanceof Error err) throw err;
                    throw new IllegalStateException(e.getCause());
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
