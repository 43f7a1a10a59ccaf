package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.access.Principal;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Sessions: an agent at a version, running in an environment, with its event log. */
public final class SessionService {
    static final String PREFIX = "sesn";
    private static final Set<String> CREATE_FIELDS = Set.of("agent", "environment_id", "metadata", "title", "resources", "vault_ids",
            "initial_events", "budget");
    private static final Set<String> UPDATE_FIELDS = Set.of("metadata", "title", "vault_ids", "agent", "budget");
    private static final Set<String> STATUSES = Set.of(Session.IDLE, Session.RUNNING, Session.RESCHEDULING, Session.TERMINATED);

    private final ResourceStore store;
    private final AgentService agents;
    private final EnvironmentService environments;
    private final VaultService vaults;
    private final SessionFinder finder;
    private final EventIntake intake;
    private final EventLog events;
    private final SessionEngine engine;
    private final WorkQueue work;
    private final SessionEnding ending;
    private final AgentsConfig config;
    private final Clock clock;

    SessionService(ResourceStore store, AgentService agents, EnvironmentService environments, VaultService vaults, SessionFinder finder,
                   EventIntake intake, EventLog events, SessionEngine engine, WorkQueue work, SessionEnding ending, AgentsConfig config, Clock clock) {
        this.store = store;
        this.agents = agents;
        this.environments = environments;
        this.vaults = vaults;
        this.finder = finder;
        this.intake = intake;
        this.events = events;
        this.engine = engine;
        this.work = work;
        this.ending = ending;
        this.config = config;
        this.clock = clock;
    }

    public SessionResource create(Principal p, Map<String, Object> body) {
        Callers.requireApiKey(p, "create sessions");
        Fields.allowOnly(body, CREATE_FIELDS, "");
        String envId = Fields.requiredString(body, "environment_id", 64);
        Resource envRow = environments.find(p, envId);
        if (envRow.archivedAt() != null) {
            throw new PaddockException(ErrorCode.ENVIRONMENT_ARCHIVED, "environment " + envId + " is archived; sessions cannot start in it");
        }
        if (!config.hasModel()) {
            throw new PaddockException(ErrorCode.MODEL_NOT_CONFIGURED, "this Paddock server has no model configured, so it cannot run an "
                    + "agent loop; set model_base_url (and model_api_key) in the server config or PADDOCK_MODEL_BASE_URL");
        }
        Agent agent = agentSnapshot(p, body.get("agent"));
        List<Object> resources = Fields.array(body.get("resources"), "resources");
        if (resources != null && !resources.isEmpty()) {
            throw new PaddockException(ErrorCode.RESOURCES_NOT_SUPPORTED, "Paddock does not mount session resources yet; send no 'resources'");
        }
        List<String> vaultIds = vaults.requireUsable(p, Fields.strings(body.get("vault_ids"), "vault_ids", 16, null, "a vault id"));
        if (body.get("budget") != null) throw new PaddockException(ErrorCode.BUDGET_NOT_SUPPORTED, "Paddock does not enforce session budgets yet; send no 'budget'");
        Instant now = clock.instant();
        String id = Ids.newId(PREFIX, now);
        SessionResource s = new SessionResource(id, agent, envId, Session.IDLE, Fields.optionalString(body, "title", 512),
                Fields.metadata(body.get("metadata"), "metadata"), Times.iso(now), Times.iso(now), null, null, SessionUsage.NONE, null, vaultIds);
        Session session = Session.create(id, p.tenantId(), envId, agent.id(), now, s.toStored());
        List<Object> initial = Fields.array(body.get("initial_events"), "initial_events");
        if (initial != null) intake.validate(p, session, initial);
        store.insert(session.row());
        Environment env = Environment.of(envRow);
        if (env.sandboxFree()) {
            events.append(id, p.tenantId(), SessionEventType.SESSION_WARNING, AgentEvents.warning("sandbox_free",
                    "this session's environment has no sandbox: its tools run on the Paddock host with no isolation"));
        }
        if (env.selfHosted()) work.enqueue(p.tenantId(), envId, id);
        if (initial != null && !initial.isEmpty()) intake.send(p, id, Map.of("events", initial));
        return get(p, id);
    }

    public SessionResource get(Principal p, String id) {
        return view(finder.find(p, id));
    }

    /** Which sessions a list shows: of one agent (or any), in some statuses (or any), oldest or newest first. */
    public record Query(String agentId, List<String> statuses, boolean includeArchived, boolean newestFirst) {
        public Query {
            statuses = List.copyOf(statuses);
        }
    }

    public ListResult list(Principal p, PageRequest page, Query q) {
        Callers.requireApiKey(p, "list sessions");
        for (String st : q.statuses()) {
            if (!STATUSES.contains(st)) throw new PaddockException(ErrorCode.INVALID_PARAMETER, "statuses must be among " + STATUSES + ", got '" + Text.clip(st, 30) + "'");
        }
        Page<Resource> rows = store.list(Resource.SESSION, p.tenantId(),
                new ResourceFilter(q.includeArchived(), null, q.agentId(), q.statuses(), q.newestFirst()), page);
        return ListResult.of(rows.map(r -> view(new Session(r)).toWire()), page);
    }

    public SessionResource update(Principal p, String id, Map<String, Object> body) {
        Callers.requireApiKey(p, "update sessions");
        Fields.allowOnly(body, UPDATE_FIELDS, "");
        if (body.get("vault_ids") != null) {
            throw new PaddockException(ErrorCode.VAULTS_NOT_SUPPORTED, "a session's vault_ids are set when it is created and cannot be changed");
        }
        if (body.get("agent") != null || body.get("budget") != null) {
            throw new PaddockException(ErrorCode.NOT_SUPPORTED, "Paddock cannot change a session's agent or budget yet; update its title or metadata");
        }
        Session r = finder.find(p, id);
        SessionResource s = SessionResource.of(r);
        String title = body.containsKey("title") ? Fields.optionalString(body, "title", 512) : s.title();
        Map<String, String> metadata = body.containsKey("metadata") ? Fields.patchMetadata(s.metadata(), body.get("metadata"), "metadata") : s.metadata();
        Instant now = clock.instant();
        SessionResource updated = s.withTitleAndMetadata(title, metadata, Times.iso(now));
        SessionResource out = view(new Session(store.update(r.row().withBody(updated.toStored(), now))));
        events.append(id, p.tenantId(), SessionEventType.SESSION_UPDATED, updated.updatedEvent());
        return out;
    }

    /** Archives the session: its loop stops, its sandbox and work are released, and it is terminated. */
    public SessionResource archive(Principal p, String id) {
        Callers.requireApiKey(p, "archive sessions");
        Session r = finder.find(p, id);
        if (r.row().archivedAt() != null) return view(r);
        Resource ended = terminate(r);
        Instant now = clock.instant();
        SessionResource s = SessionResource.of(new Session(ended)).archive(Times.iso(now));
        return view(new Session(store.update(ended.archived(now).withBody(s.toStored(), now))));
    }

    public Map<String, Object> delete(Principal p, String id) {
        Callers.requireApiKey(p, "delete sessions");
        terminate(finder.find(p, id));
        events.append(id, p.tenantId(), SessionEventType.SESSION_DELETED, Map.of());
        store.delete(Resource.SESSION, p.tenantId(), id);
        events.endAll(id);
        return new Deleted(id, "session_deleted").toWire();
    }

    /** The session as answered now. */
    private SessionResource view(Session s) {
        return SessionResource.of(s).readAt(clock.instant());
    }

    private Resource terminate(Session r) {
        engine.forget(r.id());
        return ending.end(r);
    }

    /** Finds a session; an environment key sees the sessions of its environment only. */
    public Resource find(Principal p, String id) {
        return finder.find(p, id).row();
    }

    private Agent agentSnapshot(Principal p, Object ref) {
        String agentId;
        Integer version = null;
        if (ref instanceof String s) {
            agentId = s;
        } else {
            Map<String, Object> m = Fields.object(ref, "agent");
            if (m == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'agent' is required");
            Fields.allowOnly(m, Set.of("type", "id", "version"), "agent");
            if (!"agent".equals(m.get("type"))) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'agent.type' must be 'agent' (agent_with_overrides is not supported yet)");
            }
            agentId = Fields.requiredString(m, "id", 64);
            if (m.get("version") instanceof Number n) version = n.intValue();
            else if (m.get("version") != null) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'agent.version' must be an integer");
        }
        Agent a = agents.get(p, agentId, version);
        if (a.archived()) throw new PaddockException(ErrorCode.AGENT_ARCHIVED, "agent " + agentId + " is archived");
        return a;
    }
}
