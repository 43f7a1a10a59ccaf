package dev.paddock.host;

import dev.paddock.core.PaddockException;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Per-key locks that cannot pile up: an entry lives only while some thread holds or waits for its lock. Every use
 * counts itself in and out inside the map's atomic {@code compute}, so two threads asking for the same key always get
 * the same lock, and the entry goes the moment the last one is done. Two kinds per sandbox id: the operation lock
 * (lifecycle changes, checkpoints; reentrant) and the freeze gate, held for writing while a checkpoint or restore
 * keeps the sandbox frozen and for reading by calls into it.
 */
final class SandboxLocks {
    private final Counted<ReentrantLock> operations = new Counted<>(ReentrantLock::new);
    private final Counted<ReentrantReadWriteLock> gates = new Counted<>(() -> new ReentrantReadWriteLock(true));

    /** Runs {@code body} holding the lock of {@code key}; a checked exception comes out as the API's error. */
    <T> T withLock(String key, Callable<T> body) {
        ReentrantLock lock = operations.enter(key);
        try {
            lock.lock();
            try {
                return body.call();
            } finally {
                lock.unlock();
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw Operations.asPaddock("operation", e);
        } finally {
            operations.leave(key);
        }
    }

    /** Runs {@code body} under the lock of {@code key} when nobody holds it; otherwise does nothing. */
    void ifUnlocked(String key, Runnable body) {
        ReentrantLock lock = operations.enter(key);
        try {
            if (!lock.tryLock()) return;
            try {
                body.run();
            } finally {
                lock.unlock();
            }
        } finally {
            operations.leave(key);
        }
    }

    /** Runs {@code body} with the sandbox's freeze gate held for writing: calls into the sandbox wait meanwhile. */
    <T> T frozen(String id, Callable<T> body) throws Exception {
        ReentrantReadWriteLock gate = gates.enter(id);
        try {
            gate.writeLock().lock();
            try {
                return body.call();
            } finally {
                gate.writeLock().unlock();
            }
        } finally {
            gates.leave(id);
        }
    }

    /** Runs {@code body} outside any freeze of the sandbox, waiting at most {@code waitMillis} for one to end ({@code busy} when it does not). */
    <T> T thawed(String id, long waitMillis, Supplier<PaddockException> busy, Supplier<T> body) {
        ReentrantReadWriteLock gate = gates.enter(id);
        try {
            if (!gate.readLock().tryLock(waitMillis, TimeUnit.MILLISECONDS)) throw busy.get();
            try {
                return body.get();
            } finally {
                gate.readLock().unlock();
            }
        } catch (InterruptedException e) {
            throw Operations.asPaddock("call", e);
        } finally {
            gates.leave(id);
        }
    }

    /** Entries in use now: none once every operation is done. */
    int size() {
        return operations.size() + gates.size();
    }

    /** A lock per key with a count of its users; the entry is dropped when the count returns to zero. */
    private static final class Counted<L> {
        private final Supplier<L> factory;
        private final Map<String, Entry<L>> entries = new ConcurrentHashMap<>();

        Counted(Supplier<L> factory) {
            this.factory = factory;
        }

        L enter(String key) {
            return entries.compute(key, (k, e) -> {
                Entry<L> in = e == null ? new Entry<>(factory.get()) : e;
                in.users++;
                return in;
            }).lock;
        }

        void leave(String key) {
            entries.computeIfPresent(key, (k, e) -> --e.users == 0 ? null : e);
        }

        int size() {
            return entries.size();
        }
    }

    private static final class Entry<L> {
        final L lock;
        int users; // changed only inside the map's compute for this key

        Entry(L lock) {
            this.lock = lock;
        }
    }
}
