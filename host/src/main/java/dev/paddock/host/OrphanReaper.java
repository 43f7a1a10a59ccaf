package dev.paddock.host;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.store.SandboxRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs once at start-up. Every sandbox the store still calls active belongs to an earlier host: it is taken over
 * (fence generation + 1, so the old owner can no longer write) and then either re-attached, when its backend still
 * runs it, or terminated with its workspace kept (failed, its files removed, when its create was cut off). Backend
 * sandboxes the store does not know as active are destroyed, and purged where no record names them.
 */
final class OrphanReaper {
    private static final Logger log = LoggerFactory.getLogger(OrphanReaper.class);
    private final OwnedSandboxes host;

    OrphanReaper(OwnedSandboxes host) {
        this.host = host;
    }

    void reapAll() {
        reapAll(Set.of());
    }

    /** {@link #reapAll()}, leaving alone the backend sandboxes {@code pooled} names (a warm pool's, which have no record). */
    void reapAll(Set<String> pooled) {
        // Backend sandboxes are kept only when re-attached (or when recovery failed and the record stays active):
        // one whose record was terminated here — e.g. caught mid-create, before it had a handle — is destroyed below.
        Set<String> keep = new HashSet<>(pooled);
        List<SandboxRecord> cutOff = new ArrayList<>();
        for (SandboxRecord r : host.activeRecords()) {
            Optional<String> unavailable = Optional.ofNullable(host.drivers().get(r.driver())).flatMap(SandboxDriver::unavailableReason);
            if (unavailable.isPresent()) {
                // its backend may well still run it: left as it is until the driver can run here again
                keep.add(r.id());
                log.warn("left sandbox {} alone: driver {} cannot run on this host ({})", r.id(), r.driver(), unavailable.get());
                continue;
            }
            try {
                if (reap(r, cutOff)) keep.add(r.id());
            } catch (PaddockException e) {
                keep.add(r.id());
                log.warn("could not recover sandbox {}: {}", r.id(), e.getMessage());
            }
        }
        for (Map.Entry<String, SandboxDriver> e : host.drivers().entrySet()) {
            for (SandboxRef ref : e.getValue().list()) {
                if (keep.contains(ref.sandboxId())) continue;
                log.info("destroying backend sandbox {} on {}: no running record owns it", ref.sandboxId(), e.getKey());
                try {
                    e.getValue().destroy(ref);
                    // one no record names at all (a warm pool's): nobody can read its files, so they go too
                    if (host.store().sandboxes().find(ref.sandboxId()).isEmpty()) e.getValue().purge(ref);
                } catch (RuntimeException ex) {
                    log.warn("could not destroy {}: {}", ref.sandboxId(), ex.getMessage());
                }
            }
        }
        for (SandboxRecord r : cutOff) {
            SandboxDriver driver = host.drivers().get(r.driver());
            try {
                if (driver != null) driver.purge(OwnedSandboxes.ref(r));
            } catch (RuntimeException ex) {
                log.warn("could not remove the files of {}, whose start was cut off: {}", r.id(), ex.getMessage());
            }
        }
    }

    /**
     * Re-attaches the sandbox (true) or ends its record (false): terminated, or failed when its start was cut off (then
     * named in {@code cutOff}, whose files go too). One handed over from a lost node waits for its restore.
     */
    private boolean reap(SandboxRecord old, List<SandboxRecord> cutOff) {
        Fence fence = host.store().sandboxes().takeOver(old.id(), old.fence(), host.ownerId());
        SandboxRecord r = host.store().sandboxes().find(old.id()).orElseThrow();
        if (HandedOver.pending(r)) return true; // no backend of it runs here yet: HandedOver restores it next
        SandboxDriver driver = host.drivers().get(r.driver());
        boolean resumable = r.state() == SandboxState.RUNNING || r.state() == SandboxState.SUSPENDED;
        Optional<Sandbox> attached = Optional.empty();
        if (driver != null && resumable && r.handle() != null) {
            try {
                host.openEgress(r.spec()); // the old listener died with the old host: open it again first
                attached = driver.attach(OwnedSandboxes.ref(r));
            } catch (RuntimeException e) {
                log.warn("attach of {} failed: {}", r.id(), e.getMessage());
            }
        }
        if (attached.isPresent()) {
            host.adopt(r.id(), attached.get());
            host.event(r, "sandbox.reattached", Map.of("generation", fence.generation()));
            new Reconciler(host).reconcile(r); // e.g. left frozen by a host killed mid-checkpoint
            log.info("re-attached sandbox {} ({})", r.id(), r.state().wireName());
            return true;
        }
        if (r.state() == SandboxState.CREATING) {
            // its create (a fork's copy, a restore) was cut off: it never ran, so it failed, and what it had made goes
            host.fail(r, "start_interrupted", "the server stopped before the sandbox finished starting; create it again");
            cutOff.add(r); // its files go once its backend is destroyed below
            return false;
        }
        host.event(r, "sandbox.orphan_reaped", Map.of("generation", fence.generation(),
                "reason", driver == null ? "driver not loaded" : "backend no longer runs it"));
        host.terminate(r, TerminationReason.ORPHAN_REAPED);
        log.info("terminated orphan sandbox {}; its workspace is kept", r.id());
        return false;
    }
}
