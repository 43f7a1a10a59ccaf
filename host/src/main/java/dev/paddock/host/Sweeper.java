package dev.paddock.host;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.store.SandboxRecord;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass over the sandboxes this host owns: first the backend is made to agree with the record ({@link Reconciler}),
 * then the lifetime and idle policy applies: a sandbox past its lifetime is
 * terminated; one idle for {@code idleSuspendAfter} is suspended (or terminated when its driver cannot suspend);
 * one suspended and idle for a further {@code idleTerminateAfter} is terminated.
 */
final class Sweeper {
    private static final Logger log = LoggerFactory.getLogger(Sweeper.class);
    /** Reason recorded when the idle policy suspended a sandbox; such a sandbox resumes by itself on use. */
    static final String IDLE_SUSPEND_REASON = "idle";
    private final OwnedSandboxes host;
    private final Reconciler reconciler;

    Sweeper(OwnedSandboxes host) {
        this.host = host;
        this.reconciler = new Reconciler(host);
    }

    void sweep() {
        Instant now = host.clock().instant();
        for (SandboxRecord r : host.activeRecords()) {
            if (!host.ownerId().equals(r.fence().ownerId())) continue;
            try {
                sweepOne(r, now);
            } catch (PaddockException e) {
                log.warn("policy action on {} failed: {}", r.id(), e.getMessage());
            }
        }
    }

    private void sweepOne(SandboxRecord listed, Instant now) {
        reconciler.reconcile(listed);
        host.flushActivity(listed);
        // the listed record decides whether anything is due; only then is it read again, so a pass over thousands of
        // idle sandboxes with nothing to do costs no store read per sandbox
        if (!due(listed, now)) return;
        // the record as it stands now, not as listed when the sweep began: reconciling may have failed it, and its
        // user may have resumed or deleted it while the sweep inspected the sandboxes before it
        SandboxRecord r = host.store().sandboxes().find(listed.id()).orElse(null);
        if (r == null || r.state().isTerminal()) return;
        if (r.expiresAt() != null && !now.isBefore(r.expiresAt())) {
            host.terminate(r, TerminationReason.LIFETIME_EXPIRED);
            return;
        }
        Instant idleSince = host.lastActivity(r);
        if (r.state() == SandboxState.RUNNING) {
            if (passed(idleSince, r.idleSuspendAfter(), now) && host.driver(r).conformance().supportsSuspendResume()) {
                host.suspend(r, IDLE_SUSPEND_REASON);
            } else if (passed(idleSince, sum(r.idleSuspendAfter(), r.idleTerminateAfter()), now)) {
                host.terminate(r, TerminationReason.IDLE_EXPIRED);
            }
        } else if (r.state() == SandboxState.SUSPENDED && IDLE_SUSPEND_REASON.equals(r.stateReason())
                && passed(r.updatedAt(), r.idleTerminateAfter(), now)) {
            host.terminate(r, TerminationReason.IDLE_EXPIRED);
        }
    }

    /**
     * Whether the lifetime or the idle policy may act on the record as listed. A change since the listing only moves
     * a deadline later (a resume, new activity) or ends the sandbox, so a record with nothing due when listed has
     * nothing due now.
     */
    private boolean due(SandboxRecord r, Instant now) {
        if (r.expiresAt() != null && !now.isBefore(r.expiresAt())) return true;
        Instant idleSince = host.lastActivity(r);
        return switch (r.state()) {
            case RUNNING -> passed(idleSince, r.idleSuspendAfter(), now) || passed(idleSince, sum(r.idleSuspendAfter(), r.idleTerminateAfter()), now);
            case SUSPENDED -> IDLE_SUSPEND_REASON.equals(r.stateReason()) && passed(r.updatedAt(), r.idleTerminateAfter(), now);
            default -> false;
        };
    }

    private static boolean passed(Instant since, Duration after, Instant now) {
        return after != null && !now.isBefore(since.plus(after));
    }

    /** Idle time after which a sandbox that could not be suspended is terminated; null when there is no such limit. */
    private static Duration sum(Duration suspendAfter, Duration terminateAfter) {
        if (terminateAfter == null) return null;
        return suspendAfter == null ? terminateAfter : suspendAfter.plus(terminateAfter);
    }
}
