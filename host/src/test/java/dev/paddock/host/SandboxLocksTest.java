package dev.paddock.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Per-sandbox locks exclude each other per key and leave nothing behind once every user is done. */
class SandboxLocksTest {
    private final SandboxLocks locks = new SandboxLocks();

    @Test
    void threadsOfOneKeyTakeTurnsAndTheEntryGoesWithTheLast() throws Exception {
        int[] counter = {0};
        List<Future<?>> all = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 400; i++) {
                String key = "sbx_" + (i % 3);
                all.add(threads.submit(() -> locks.withLock(key, () -> {
                    if (key.equals("sbx_0")) {
                        int seen = counter[0];
                        Thread.yield(); // a lost update shows when two threads hold "the" lock of sbx_0 at once
                        counter[0] = seen + 1;
                    }
                    return null;
                })));
            }
            for (Future<?> f : all) f.get(30, TimeUnit.SECONDS);
        }
        assertThat(counter[0]).isEqualTo(134);
        assertThat(locks.size()).isZero();
    }

    @Test
    void ifUnlockedSkipsWhileAnotherThreadHoldsTheLockAndIsReentrantForTheHolder() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        CompletableFuture<?> holder = CompletableFuture.runAsync(() -> locks.withLock("sbx_1", () -> {
            held.countDown();
            done.await();
            return null;
        }));
        held.await();
        boolean[] ran = {false};
        locks.ifUnlocked("sbx_1", () -> ran[0] = true);
        assertThat(ran[0]).isFalse();
        done.countDown();
        holder.get(30, TimeUnit.SECONDS);
        locks.withLock("sbx_1", () -> {
            locks.ifUnlocked("sbx_1", () -> ran[0] = true);
            return null;
        });
        assertThat(ran[0]).isTrue();
        assertThat(locks.size()).isZero();
    }

    @Test
    void aCallWaitsForAFreezeOrGivesUpWithTheBusyError() throws Exception {
        CountDownLatch frozen = new CountDownLatch(1);
        CountDownLatch thaw = new CountDownLatch(1);
        CompletableFuture<?> freeze = CompletableFuture.runAsync(() -> {
            try {
                locks.frozen("sbx_2", () -> {
                    frozen.countDown();
                    thaw.await();
                    return null;
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        frozen.await();
        assertThatThrownBy(() -> locks.thawed("sbx_2", 0, () -> new PaddockException(ErrorCode.SANDBOX_BUSY, "frozen"), () -> "ran"))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("sandbox_busy"));
        thaw.countDown();
        freeze.get(30, TimeUnit.SECONDS);
        assertThat(locks.thawed("sbx_2", 0, () -> new PaddockException(ErrorCode.SANDBOX_BUSY, "frozen"), () -> "ran")).isEqualTo("ran");
        assertThat(locks.size()).isZero();
    }
}
