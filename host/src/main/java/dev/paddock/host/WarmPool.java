package dev.paddock.host;

import dev.paddock.core.Ids;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sandboxes of the default driver started ahead of demand with the default settings (host root, default limits,
 * no network, no env). A create asking for exactly that takes one instead of starting a sandbox; a background
 * refill keeps the pool full. Pooled sandboxes belong to no tenant and have no record: a host that dies leaves them
 * to the next host's orphan reaper, which destroys backend sandboxes no record owns.
 */
final class WarmPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WarmPool.class);
    private static final String NO_TENANT = "warm-pool";
    private static final Duration REFILL_DELAY_AFTER_CLAIM = Duration.ofMillis(100);

    record Entry(SandboxSpec spec, Sandbox sandbox) {}

    private final SandboxDriver driver;
    private final int size;
    private final Fence fence;
    private final ConcurrentLinkedQueue<Entry> ready = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean refilling = new AtomicBoolean();
    private volatile boolean closed;

    WarmPool(SandboxDriver driver, int size, String ownerId) {
        this.driver = driver;
        this.size = size;
        this.fence = new Fence(ownerId, 1);
    }

    /** True when a sandbox for this request can come from the pool. */
    boolean fits(SandboxDriver wanted, SandboxRequest r) {
        return size > 0 && wanted == driver && r.image() == null && !r.writableRootfs()
                && (r.limits() == null || r.limits().equals(Limits.DEFAULT))
                && (r.env() == null || r.env().isEmpty())
                && (r.network() == null || r.network().mode() == NetworkPolicy.Mode.NONE)
                && (r.credentials() == null || r.credentials().isEmpty());
    }

    /** A started sandbox, or empty when the pool is drained; each entry is handed out once. */
    Optional<Entry> claim() {
        Entry e = ready.poll();
        refillAsync(REFILL_DELAY_AFTER_CLAIM);
        return Optional.ofNullable(e);
    }

    /** The fence pooled sandboxes were created with; a claimed one keeps it as its record's first fence. */
    Fence fence() {
        return fence;
    }

    int available() {
        return ready.size();
    }

    void refillAsync() {
        refillAsync(Duration.ZERO);
    }

    /**
     * Refills in the background. After a claim it waits a moment first: the caller's first commands usually follow
     * at once, and starting a sandbox beside them would take the CPU they need.
     */
    private void refillAsync(Duration delay) {
        if (size == 0 || closed || !refilling.compareAndSet(false, true)) return;
        Thread.ofVirtual().name("paddock-warm-pool").start(() -> {
            try {
                Thread.sleep(delay);
                while (!closed && ready.size() < size) {
                    SandboxSpec spec = SandboxSpec.defaults(Ids.newId("sbx"), NO_TENANT);
                    ready.add(new Entry(spec, driver.create(spec, fence)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn("warm pool refill on {} failed; creates start sandboxes directly: {}", driver.id(), e.getMessage());
            } finally {
                refilling.set(false);
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        for (Entry e; (e = ready.poll()) != null; ) {
            try {
                e.sandbox().terminate(TerminationReason.HOST_SHUTDOWN);
            } catch (RuntimeException ex) {
                log.debug("terminating pooled sandbox {} failed: {}", e.spec().sandboxId(), ex.getMessage());
            }
        }
    }
}
