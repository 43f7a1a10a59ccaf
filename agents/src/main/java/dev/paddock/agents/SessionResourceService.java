package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.store.PageRequest;
import java.util.Map;

/**
 * {@code /v1/sessions/{id}/resources}: list, add, retrieve, update (a repository's token) and delete a session's
 * resources. One added while the session's sandbox runs is laid into it at once (a failure is the session's
 * {@code session.error}, as at the first tool call); a deleted one stays in a running sandbox's files.
 */
public final class SessionResourceService {
    private final SessionFinder finder;
    private final ResourceStore store;
    private final SessionMounts mounts;
    private final SessionSandboxes sandboxes;
    private final EventLog events;

    SessionResourceService(SessionFinder finder, ResourceStore store, SessionMounts mounts, SessionSandboxes sandboxes, EventLog events) {
        this.finder = finder;
        this.store = store;
        this.mounts = mounts;
        this.sandboxes = sandboxes;
        this.events = events;
    }

    public ListResult list(Principal p, String sessionId, PageRequest page) {
        return mounts.list(p, session(p, sessionId), page);
    }

    public Map<String, Object> add(Principal p, String sessionId, Map<String, Object> body) {
        Session s = session(p, sessionId);
        Environment env = environment(s);
        SessionMount m = mounts.add(p, s, env, body);
        try {
            sandboxes.placeIfLive(s, env, m);
        } catch (ResourcePlacement.Failure f) {
            events.append(s.id(), s.tenantId(), SessionEventType.SESSION_ERROR, AgentEvents.resourceError(f.errorType(), f.getMessage(), f.repositoryUrl()));
        }
        return m.toWire();
    }

    public Map<String, Object> get(Principal p, String sessionId, String id) {
        return mounts.get(p, session(p, sessionId), id).toWire();
    }

    public Map<String, Object> update(Principal p, String sessionId, String id, Map<String, Object> body) {
        return mounts.update(p, session(p, sessionId), id, body).toWire();
    }

    public Map<String, Object> delete(Principal p, String sessionId, String id) {
        return mounts.delete(p, session(p, sessionId), id);
    }

    private Session session(Principal p, String sessionId) {
        Callers.requireApiKey(p, "manage session resources");
        return finder.find(p, sessionId);
    }

    private Environment environment(Session s) {
        return store.find(Resource.ENVIRONMENT, s.tenantId(), s.environmentId()).map(Environment::of)
                .orElseThrow(() -> PaddockException.notFound("environment", s.environmentId()));
    }
}
