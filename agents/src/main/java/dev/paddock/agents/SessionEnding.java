package dev.paddock.agents;

import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionEventType;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * Ends a session for good: its work is stopped, its sandbox released, and it is {@code terminated} with a
 * {@code session.status_terminated} event. Used when a session is archived or deleted, and when its loop meets an
 * error no retry can mend.
 */
final class SessionEnding {
    private final ResourceStore store;
    private final EventLog events;
    private final WorkQueue work;
    private final SessionSandboxes sandboxes;
    private final Clock clock;

    SessionEnding(ResourceStore store, EventLog events, WorkQueue work, SessionSandboxes sandboxes, Clock clock) {
        this.store = store;
        this.events = events;
        this.work = work;
        this.sandboxes = sandboxes;
        this.clock = clock;
    }

    /** The session's row once it is terminated (as it was, when it already was). */
    Resource end(Session r) {
        return end(r, null);
    }

    /**
     * As {@link #end(Session)}, by the session's loop running as {@code ownerId} (null: a server alone): only while
     * it owns the session ({@link dev.paddock.core.agents.SessionMovedException} otherwise, and nothing is ended).
     */
    Resource end(Session r, String ownerId) {
        if (ownerId == null) release(r);
        if (r.terminated()) return r.row();
        for (int attempt = 0; ; attempt++) {
            Session cur = current(r).orElseThrow(() -> PaddockException.notFound("session", r.id()));
            if (cur.terminated()) return cur.row();
            try {
                Resource row = cur.withStatus(Session.TERMINATED, clock.instant()).row();
                Resource out = ownerId == null ? store.update(row) : store.updateAsOwner(ownerId, row);
                events.append(ownerId, null, r.id(), r.tenantId(), SessionEventType.SESSION_STATUS_TERMINATED, Map.of());
                if (ownerId != null) release(r); // its owner's loop: the session is its own until the update above
                return out;
            } catch (PaddockException e) {
                if (!"concurrent_update".equals(e.code()) || attempt > 10) throw e;
            }
        }
    }

    private void release(Session r) {
        work.stopForSession(r.id());
        sandboxes.release(current(r).orElse(r));
    }

    private Optional<Session> current(Session s) {
        return store.find(Resource.SESSION, s.tenantId(), s.id()).map(Session::new);
    }
}
