package dev.paddock.host;

import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.store.SandboxRecord;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the backend agree with the record, which is the intent: a sandbox the record calls running is thawed when
 * its backend was left frozen (a host killed mid-checkpoint, a suspend whose write failed), one it calls suspended is
 * frozen again, and one whose backend died (its init killed, its processes gone) is marked failed with the reason
 * (unless its driver says such a sandbox comes back by itself, as a reopened browser tab does).
 * Runs for every adopted sandbox at start-up and for every live one on each sweep; a sandbox whose lock is held is
 * mid-operation and is left to that operation.
 */
final class Reconciler {
    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);
    private final OwnedSandboxes host;

    Reconciler(OwnedSandboxes host) {
        this.host = host;
    }

    /**
     * Makes the backend agree with the record, or fails the sandbox when its backend is lost. The backend is asked
     * first; only when it disagrees with the record as listed is the record read again, under the sandbox's lock, so
     * a pass over thousands of healthy sandboxes reads nothing from the store.
     */
    void reconcile(SandboxRecord listed) {
        Sandbox live = host.live(listed.id());
        if (live == null || listed.state().isTerminal() || !host.ownerId().equals(listed.fence().ownerId())) return;
        SandboxStatus seen = liveness(live, listed);
        if (seen == null || agrees(listed, live, seen)) return;
        host.ifUnlocked(listed.id(), () -> {
            SandboxRecord r = host.store().sandboxes().find(listed.id()).orElse(null);
            Sandbox s = host.live(listed.id());
            if (r == null || s == null || r.state().isTerminal() || !host.ownerId().equals(r.fence().ownerId())) return;
            SandboxStatus status = liveness(s, r);
            if (status == null) return;
            if (!status.alive() && s.goneWhenNotAlive()) {
                host.fail(r, "backend_lost", "the sandbox's backend stopped (its init process died or was killed); its workspace is kept");
            } else if (r.state() == SandboxState.RUNNING && status.frozen()) {
                s.resume();
                log.warn("sandbox {} was frozen while its record says running; thawed it", r.id());
                host.event(r, "sandbox.reconciled", Map.of("backend", "frozen", "now", "running"));
            } else if (r.state() == SandboxState.SUSPENDED && !status.frozen() && host.driver(r).conformance().supportsSuspendResume()) {
                s.suspend();
                log.warn("sandbox {} was running while its record says suspended; froze it", r.id());
                host.event(r, "sandbox.reconciled", Map.of("backend", "running", "now", "suspended"));
            }
        });
    }

    /** Whether there is nothing to do: the backend is as the record says (an operation in flight is left to itself). */
    private boolean agrees(SandboxRecord r, Sandbox s, SandboxStatus status) {
        if (!status.alive() && s.goneWhenNotAlive()) return false;
        return switch (r.state()) {
            case RUNNING -> !status.frozen();
            case SUSPENDED -> status.frozen() || !host.driver(r).conformance().supportsSuspendResume();
            default -> true;
        };
    }

    private static SandboxStatus liveness(Sandbox s, SandboxRecord r) {
        try {
            return s.liveness();
        } catch (RuntimeException e) {
            log.debug("liveness of {} failed: {}", r.id(), e.getMessage());
            return null;
        }
    }
}
