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
        work.stopForSession(r.id());
        sandboxes.release(current(r).orElse(r));
        if (r.terminated()) return r.row();
        for (int attempt = 0; ; attempt++) {
            Session cur = current(r).orElseThrow(() -> PaddockException.notFound("session", r.id()));
            if (cur.terminated()) return cur.row();
            try {
                Resource out = store.update(cur.withStatus(Session.TERMINATED, clock.instant()).row());
                events.append(r.id(), r.tenantId(), SessionEventType.SESSION_STATUS_TERMINATED, Map.of());
                return out;
            } catch (PaddockException e) {
                if (!"concurrent_update".equals(e.code()) || attempt > 10) throw e;
            }
        }
    }

    private Optional<Session> current(Session s) {
        return store.find(Resource.SESSION, s.tenantId(), s.id()).map(Session::new);
    }
}
