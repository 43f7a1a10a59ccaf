package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;

/** Reads sessions for a caller and the environments they run in; shared by the session service and the event intake. */
final class SessionFinder {
    private final ResourceStore store;
    private final EnvironmentService environments;

    SessionFinder(ResourceStore store, EnvironmentService environments) {
        this.store = store;
        this.environments = environments;
    }

    /** Finds a session; an environment key sees the sessions of its environment only. */
    Session find(Principal p, String id) {
        ResourceIds.require(SessionService.PREFIX, id, "session_id");
        Session s = store.find(Resource.SESSION, p.tenantId(), id).map(Session::new).orElseThrow(() -> PaddockException.notFound("session", id));
        if (Callers.isEnvironmentKey(p) && !environments.boundEnvironment(p).equals(s.environmentId())) {
            throw PaddockException.notFound("session", id);
        }
        return s;
    }

    /** True when the session's environment is self-hosted: an external worker runs its tools. */
    boolean selfHosted(Session session) {
        // the row's state is the environment's config type, so its body need not be parsed
        return store.find(Resource.ENVIRONMENT, session.tenantId(), session.environmentId())
                .map(r -> EnvironmentConfigs.SELF_HOSTED.equals(r.state())).orElse(false);
    }
}
