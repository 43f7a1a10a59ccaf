package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.access.Principal;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Agents: a model, a system prompt and tools, versioned; every update makes a new version. */
public final class AgentService {
    static final String PREFIX = "agent";
    private static final Set<String> CREATE_FIELDS = Set.of("name", "model", "description", "system", "tools", "mcp_servers",
            "metadata", "skills", "execution_identity", "multiagent");
    private static final Set<String> UPDATE_FIELDS = Set.of("name", "model", "description", "system", "tools", "mcp_servers",
            "metadata", "skills", "execution_identity", "multiagent", "version");

    private final ResourceStore store;
    private final Clock clock;

    public AgentService(ResourceStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    public Map<String, Object> create(Principal p, Map<String, Object> body) {
        Callers.requireApiKey(p, "create agents");
        Fields.allowOnly(body, CREATE_FIELDS, "");
        Instant now = clock.instant();
        String id = Ids.newId(PREFIX, now);
        Map<String, Object> agent = new LinkedHashMap<>();
        agent.put("id", id);
        agent.put("type", "agent");
        agent.put("name", Fields.requiredString(body, "name", 256));
        agent.put("description", Fields.optionalString(body, "description", 2048));
        agent.put("system", Fields.optionalString(body, "system", 100_000));
        agent.put("model", AgentSpec.model(body.get("model"), true));
        List<Object> servers = AgentSpec.mcpServers(body.get("mcp_servers"));
        agent.put("mcp_servers", servers);
        agent.put("tools", AgentSpec.tools(body.get("tools"), servers));
        agent.put("skills", AgentSpec.skills(body.get("skills")));
        agent.put("metadata", Fields.metadata(body.get("metadata"), "metadata"));
        agent.put("execution_identity", Map.of("type", "service_account"));
        agent.put("multiagent", null);
        agent.put("version", 1);
        agent.put("created_at", Times.iso(now));
        agent.put("updated_at", Times.iso(now));
        agent.put("archived_at", null);
        Resource r = new Resource(Resource.AGENT, id, p.tenantId(), null, null, null, null, null, 1, 0, now, now, null, agent);
        store.insert(r);
        store.insert(versionOf(r));
        return agent;
    }

    /** The agent at its latest version, or at {@code version} when given. */
    public Map<String, Object> get(Principal p, String id, Integer version) {
        Resource r = find(p, id);
        if (version == null || version == r.version()) return r.body();
        return store.find(Resource.AGENT_VERSION, p.tenantId(), versionId(id, version))
                .map(Resource::body)
                .orElseThrow(() -> new PaddockException(ErrorCode.NOT_FOUND, "agent " + id + " has no version " + version));
    }

    public ListResult list(Principal p, PageRequest page, boolean includeArchived) {
        Page<Resource> rows = store.list(Resource.AGENT, p.tenantId(), ResourceFilter.newestFirst(includeArchived), page);
        return ListResult.of(rows.map(Resource::body), page);
    }

    public ListResult versions(Principal p, String id, PageRequest page) {
        find(p, id);
        Page<Resource> rows = store.list(Resource.AGENT_VERSION, p.tenantId(), new ResourceFilter(true, id, null, List.of(), true), page);
        return ListResult.of(rows.map(Resource::body), page);
    }

    public Map<String, Object> update(Principal p, String id, Map<String, Object> body) {
        Callers.requireApiKey(p, "update agents");
        Fields.allowOnly(body, UPDATE_FIELDS, "");
        Resource r = find(p, id);
        if (r.archivedAt() != null) throw new PaddockException(ErrorCode.AGENT_ARCHIVED, "agent " + id + " is archived and cannot be updated");
        Object expected = body.get("version");
        if (expected != null && !(expected instanceof Number n && n.longValue() == r.version())) {
            throw new PaddockException(ErrorCode.VERSION_MISMATCH, "agent " + id + " is at version " + r.version()
                    + ", not " + expected + "; retrieve it and apply the change again");
        }
        Map<String, Object> agent = new LinkedHashMap<>(r.body());
        if (body.containsKey("name")) agent.put("name", Fields.requiredString(body, "name", 256));
        if (body.containsKey("description")) agent.put("description", Fields.optionalString(body, "description", 2048));
        if (body.containsKey("system")) agent.put("system", Fields.optionalString(body, "system", 100_000));
        if (body.get("model") != null) agent.put("model", AgentSpec.model(body.get("model"), true));
        if (body.containsKey("mcp_servers")) agent.put("mcp_servers", AgentSpec.mcpServers(body.get("mcp_servers")));
        if (body.containsKey("tools")) agent.put("tools", AgentSpec.tools(body.get("tools"), AgentSpec.list(agent.get("mcp_servers"))));
        if (body.containsKey("skills")) agent.put("skills", AgentSpec.skills(body.get("skills")));
        if (body.containsKey("metadata")) agent.put("metadata", Fields.patchMetadata(AgentSpec.map(r.body().get("metadata")), body.get("metadata"), "metadata"));
        Instant now = clock.instant();
        long next = r.version() + 1;
        agent.put("version", next);
        agent.put("updated_at", Times.iso(now));
        Resource updated = store.update(r.withBody(agent, now).withVersion(next));
        store.insert(versionOf(updated));
        return agent;
    }

    public Map<String, Object> archive(Principal p, String id) {
        Callers.requireApiKey(p, "archive agents");
        Resource r = find(p, id);
        if (r.archivedAt() != null) return r.body();
        Instant now = clock.instant();
        Map<String, Object> agent = new LinkedHashMap<>(r.body());
        agent.put("archived_at", Times.iso(now));
        agent.put("updated_at", Times.iso(now));
        return store.update(r.archived(now).withBody(agent, now)).body();
    }

    Resource find(Principal p, String id) {
        Ids.require(PREFIX, id, "agent_id");
        return store.find(Resource.AGENT, p.tenantId(), id).orElseThrow(() -> PaddockException.notFound("agent", id));
    }

    private static Resource versionOf(Resource agent) {
        return new Resource(Resource.AGENT_VERSION, versionId(agent.id(), agent.version()), agent.tenantId(), null, null, agent.id(),
                null, null, agent.version(), 0, agent.updatedAt(), agent.updatedAt(), null, agent.body());
    }

    /** Zero-padded so that versions sort by number. */
    static String versionId(String agentId, long version) {
        return agentId + ":" + String.format("%010d", version);
    }
}
