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
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sandboxes of one {@link WarmProfile}, started on the default driver ahead of demand. A create the profile fits
 * takes one instead of starting a sandbox; a background refill keeps the pool full. Pooled sandboxes belong to no
 * tenant and have no record: a host that dies leaves them to the next host's orphan reaper, which destroys backend
 * sandboxes no record owns (and purges those no record names). Ended here, their files go with them.
 */
final class WarmPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WarmPool.class);
    private static final String NO_TENANT = "warm-pool";
    /** How long a close waits for a sandbox the refill is starting (a browser sandbox takes seconds under load). */
    private static final Duration REFILL_WAIT = Duration.ofSeconds(60);

    record Entry(SandboxSpec spec, Sandbox sandbox) {}

    private final SandboxDriver driver;
    private final WarmProfile profile;
    private final Supplier<String> ownerId;
    private final UnaryOperator<SandboxSpec> openEgress;
    private final Consumer<String> closeEgress;
    private final ConcurrentLinkedQueue<Entry> ready = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean refilling = new AtomicBoolean();
    /** Counted down by {@link #close()}: the pool is closed, and a refill waiting out its delay ends at once. */
    private final CountDownLatch closing = new CountDownLatch(1);
    private volatile Thread refill;

    /** {@code openEgress} wires a spec's network (the host's egress port); {@code closeEgress} undoes it by sandbox id. */
    WarmPool(SandboxDriver driver, WarmProfile profile, Supplier<String> ownerId, UnaryOperator<SandboxSpec> openEgress, Consumer<String> closeEgress) {
        this.driver = driver;
        this.profile = profile;
        this.ownerId = ownerId;
        this.openEgress = openEgress;
        this.closeEgress = closeEgress;
        if (profile.freezeWhileWaiting() && !driver.conformance().supportsSuspendResume()) {
            throw new IllegalArgumentException("warm pool '" + profile.name() + "' freezes its sandboxes, which driver " + driver.id() + " cannot");
        }
    }

    /** True when a sandbox for this request can come from the pool. */
    boolean fits(SandboxDriver wanted, SandboxRequest r) {
        // credentials need placeholders in the sandbox's environment, fixed at its start; a way out needs the
        // forwarder, started with the sandbox (and a sandbox without one must not get it)
        boolean wantsNetwork = r.network() != null && r.network().mode() != NetworkPolicy.Mode.NONE;
        boolean hasNetwork = profile.template().network() != null && profile.template().network().mode() != NetworkPolicy.Mode.NONE;
        return profile.size() > 0 && wanted == driver && wantsNetwork == hasNetwork
                && Objects.equals(profile.template().template(), r.template()) // a pool serves its own kind only
                && (r.credentials() == null || r.credentials().isEmpty()) && profile.fits().test(r);
    }

    /**
     * A started sandbox, or empty when the pool is drained; each entry is handed out once. {@code activate} makes
     * it the caller's (after the pool thawed it); an entry it fails on is discarded and the next one tried.
     */
    Optional<Entry> claim(Consumer<Entry> activate) {
        try {
            for (Entry e; (e = ready.poll()) != null; ) {
                try {
                    if (profile.freezeWhileWaiting()) e.sandbox().resume();
                    activate.accept(e);
                    return Optional.of(e);
                } catch (RuntimeException ex) {
                    log.warn("pooled sandbox {} ({}) could not be claimed, discarding it: {}", e.spec().sandboxId(), profile.name(), ex.getMessage());
                    discard(e);
                }
            }
            return Optional.empty();
        } finally {
            refillAsync(profile.refillDelay());
        }
    }

    /** The first fence of a claimed sandbox's record: the host's owner now (a node that rejoined has a new one). */
    Fence fence() {
        return new Fence(ownerId.get(), 1);
    }

    /** The ids of the sandboxes waiting in the pool: they have no record, and a reaper must leave them alone. */
    List<String> waitingIds() {
        return ready.stream().map(e -> e.spec().sandboxId()).toList();
    }

    String name() {
        return profile.name();
    }

    int available() {
        return ready.size();
    }

    void refillAsync() {
        refillAsync(Duration.ZERO);
    }

    /** Refills in the background; after a claim it waits the profile's refill delay first. */
    private void refillAsync(Duration delay) {
        if (profile.size() == 0 || closed() || !refilling.compareAndSet(false, true)) return;
        refill = Thread.ofVirtual().name("paddock-warm-pool-" + profile.name()).start(() -> {
            try {
                if (closing.await(delay.toNanos(), TimeUnit.NANOSECONDS)) return;
                while (!closed() && ready.size() < profile.size()) {
                    Entry e = startOne();
                    if (closed()) discard(e); else ready.add(e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn("warm pool '{}' refill on {} failed; creates start sandboxes directly: {}", profile.name(), driver.id(), e.getMessage());
            } finally {
                refilling.set(false);
            }
        });
    }

    private Entry startOne() {
        SandboxRequest t = profile.template();
        SandboxSpec spec = new SandboxSpec(Ids.newId("sbx"), NO_TENANT, t.image(), t.writableRootfs(),
                t.limits() == null ? Limits.DEFAULT : t.limits(), t.env(), t.network());
        Sandbox sandbox;
        try {
            sandbox = driver.create(openEgress.apply(spec), fence());
        } catch (RuntimeException e) {
            closeEgress.accept(spec.sandboxId());
            throw e;
        }
        Entry entry = new Entry(spec, sandbox);
        try {
            profile.prepare().accept(sandbox);
            if (profile.freezeWhileWaiting()) sandbox.suspend();
        } catch (RuntimeException e) {
            discard(entry);
            throw e;
        }
        return entry;
    }

    private void discard(Entry e) {
        try {
            e.sandbox().terminate(TerminationReason.HOST_SHUTDOWN);
            driver.purge(e.sandbox().ref()); // no record names it: nobody could read its files (its disk image among them)
        } catch (RuntimeException ex) {
            log.debug("ending pooled sandbox {} failed: {}", e.spec().sandboxId(), ex.getMessage());
        }
        closeEgress.accept(e.spec().sandboxId());
    }

    /** Ends one waiting sandbox to give its resources (a uid, memory) to a create that found none; false if none waits. */
    boolean yieldOne() {
        Entry e = ready.poll();
        if (e == null) return false;
        log.info("warm pool '{}' yields pooled sandbox {}: the driver is out of capacity", profile.name(), e.spec().sandboxId());
        discard(e);
        return true;
    }

    String driverId() {
        return driver.id();
    }

    private boolean closed() {
        return closing.getCount() == 0;
    }

    /**
     * Ends the waiting sandboxes, and the one a refill is starting once it is up: a host that stopped while a refill
     * ran would otherwise leave that sandbox running, with no record, until the next host's reaper.
     */
    @Override
    public void close() {
        closing.countDown();
        Thread r = refill;
        if (r != null) {
            try {
                if (!r.join(REFILL_WAIT)) {
                    log.warn("warm pool '{}' refill still starting a sandbox after {}; interrupting it", profile.name(), REFILL_WAIT);
                    r.interrupt();
                    r.join(Duration.ofSeconds(5));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Entry e; (e = ready.poll()) != null; ) discard(e);
    }
}
