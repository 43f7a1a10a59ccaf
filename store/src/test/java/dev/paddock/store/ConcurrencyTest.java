package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

@ParameterizedClass
@EnumSource(StoreBackend.class)
class ConcurrencyTest {
    @Parameter StoreBackend backend;
    static final int WRITERS = 8;
    static final int WRITES_EACH = 200;

    @TempDir Path dir;

    @Test
    void manyVirtualThreadsWriteAndReadWithoutErrors() throws Exception {
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        try (JdbcStore store = backend.open(dir.resolve("paddock.db"))) {
            SandboxRecord shared = TestData.sandbox("tenant-1");
            store.sandboxes().insert(shared);
            CountDownLatch start = new CountDownLatch(1);
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Thread> writers = new ArrayList<>();
            List<Thread> readers = new ArrayList<>();

            for (int t = 0; t < WRITERS; t++) {
                int thread = t;
                writers.add(Thread.ofVirtual().start(() -> guard(errors, () -> {
                    start.await();
                    for (int j = 0; j < WRITES_EACH; j++) {
                        if (j % 2 == 0) {
                            store.events().append(shared.id(), TestData.FENCE, "step", Map.of("thread", thread, "j", j));
                        } else {
                            store.sandboxes().insert(TestData.sandbox("tenant-1"));
                            store.sandboxes().touch(shared.id(), TestData.FENCE, TestData.now());
                        }
                    }
                })));
            }
            for (int r = 0; r < 4; r++) {
                // platform threads: a virtual thread that never blocks keeps its carrier, and four readers looping on
                // two carriers (a 2-core machine) would starve the writers they wait for
                readers.add(Thread.ofPlatform().start(() -> guard(errors, () -> {
                    start.await();
                    while (writing.get()) {
                        store.events().list(shared.id(), PageRequest.first(50));
                        store.sandboxes().list("tenant-1", PageRequest.first(20), false);
                        store.sandboxes().listActive();
                    }
                })));
            }
            start.countDown();
            for (Thread w : writers) w.join();
            writing.set(false);
            for (Thread r : readers) r.join();

            assertThat(errors).isEmpty();
            List<SandboxEvent> events = allEvents(store, shared.id());
            assertThat(events).hasSize(WRITERS * WRITES_EACH / 2);
            // each thread's appends keep their order
            for (int t = 0; t < WRITERS; t++) {
                int thread = t;
                assertThat(events.stream().filter(e -> e.data().get("thread").equals(thread)).map(e -> (Integer) e.data().get("j")))
                        .isSorted().hasSize(WRITES_EACH / 2);
            }
            assertThat(store.sandboxes().listActive()).hasSize(1 + WRITERS * WRITES_EACH / 2);
        }
    }

    @Test
    void twoStoresOnOneFileShareItWithoutBusyErrors() throws Exception {
        // Two stores stand for two processes: the in-JVM write lock no longer serialises them, SQLite's
        // locking with busy_timeout and BEGIN IMMEDIATE must.
        Path file = dir.resolve("shared.db");
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        try (JdbcStore a = backend.open(file); JdbcStore b = backend.open(file)) {
            SandboxRecord shared = TestData.sandbox("tenant-1");
            a.sandboxes().insert(shared);
            CountDownLatch start = new CountDownLatch(1);
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int t = 0; t < 8; t++) {
                    JdbcStore store = t % 2 == 0 ? a : b;
                    pool.submit(() -> guard(errors, () -> {
                        start.await();
                        for (int j = 0; j < 50; j++) {
                            store.events().append(shared.id(), TestData.FENCE, "step", Map.of());
                            store.sandboxes().touch(shared.id(), TestData.FENCE, TestData.now());
                        }
                    }));
                }
                start.countDown();
            }
            assertThat(errors).isEmpty();
            assertThat(allEvents(b, shared.id())).hasSize(400);
        }
    }

    private static List<SandboxEvent> allEvents(JdbcStore store, String sandboxId) {
        List<SandboxEvent> out = new ArrayList<>();
        String after = null;
        while (true) {
            var page = store.events().list(sandboxId, new PageRequest(PageRequest.MAX_LIMIT, after, null));
            out.addAll(page.data());
            if (!page.hasMore()) return out;
            after = page.lastId();
        }
    }

    interface Body { void run() throws Exception; }

    private static void guard(Queue<Throwable> errors, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            errors.add(t);
        }
    }
}
