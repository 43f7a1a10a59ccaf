package dev.paddock.agents;

import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionEventType;
import java.time.Clock;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Turns whose loop stopped with the process that ran it (a node lost, a server killed): the session goes
 * {@code rescheduling}, and the loop that takes it on settles what was cut off (the tool call under way is answered
 * as cut off, not run again; the model request under way is ended as an error and asked again) and runs the turn on.
 */
final class CutOffTurns {
    private CutOffTurns() {}

    /** The session's status becomes rescheduling, and its events say so, before a loop takes it on. */
    static void rescheduled(ResourceStore resources, EventLog events, Clock clock, Session session) {
        update(resources, session, s -> s.withStatus(Session.RESCHEDULING, clock.instant()));
        events.append(session.id(), session.tenantId(), SessionEventType.SESSION_STATUS_RESCHEDULED, Map.of());
    }

    /** Applies {@code change} to the session as stored now (again on a concurrent update); an ended session stays as it is. */
    static void update(ResourceStore resources, Session session, UnaryOperator<Session> change) {
        for (int attempt = 0; attempt < 5; attempt++) {
            Session latest = resources.find(Resource.SESSION, session.tenantId(), session.id()).map(Session::new).orElse(null);
            if (latest == null || latest.terminated()) return;
            try {
                resources.update(change.apply(latest).row());
                return;
            } catch (PaddockException e) {
                if (!"concurrent_update".equals(e.code())) throw e;
            }
        }
    }
}
