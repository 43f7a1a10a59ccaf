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
import java.util.HashSet;
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
    private final SkillService skills;
    private final Clock clock;

    public AgentService(ResourceStore store, SkillService skills, Clock clock) {
        this.store = store;
        this.skills = skills;
        this.clock = clock;
    }

    public Agent create(Principal p, Map<String, Object> body) {
        Callers.requireApiKey(p, "create agents");
        Fields.allowOnly(body, CREATE_FIELDS, "");
        Instant now = clock.instant();
        String id = Ids.newId(PREFIX, now);
        String name = Fields.requiredString(body, "name", 256);
        String description = Fields.optionalString(body, "description", 2048);
        String system = Fields.optionalString(body, "system", 100_000);
        Agent.Model model = AgentSpec.model(body.get("model"), true);
        List<Agent.McpServer> servers = AgentSpec.mcpServers(body.get("mcp_servers"));
        List<AgentTool> tools = AgentSpec.tools(body.get("tools"), servers);
        List<AgentSkill> skills = skills(p, body.get("skills"));
        Map<String, String> metadata = Fields.metadata(body.get("metadata"), "metadata");
        Agent agent = new Agent(id, name, description, system, model, servers, tools, skills, metadata, 1, Times.iso(now), Times.iso(now), null);
        Resource r = new Resource(Resource.AGENT, id, p.tenantId(), null, null, null, null, null, 1, 0, now, now, null, agent.toWire());
        store.insert(r);
        store.insert(versionOf(r));
        return agent;
    }

    /** The agent at its latest version, or at {@code version} when given. */
    public Agent get(Principal p, String id, Integer version) {
        Resource r = find(p, id);
        if (version == null || version == r.version()) return Agent.fromWire(r.body());
        return store.find(Resource.AGENT_VERSION, p.tenantId(), versionId(id, version))
                .map(v -> Agent.fromWire(v.body()))
                .orElseThrow(() -> new PaddockException(ErrorCode.NOT_FOUND, "agent " + id + " has no version " + version));
    }

    public ListResult list(Principal p, PageRequest page, boolean includeArchived) {
        Page<Resource> rows = store.list(Resource.AGENT, p.tenantId(), ResourceFilter.newestFirst(includeArchived), page);
        return ListResult.of(rows.map(AgentService::wire), page);
    }

    public ListResult versions(Principal p, String id, PageRequest page) {
        find(p, id);
        Page<Resource> rows = store.list(Resource.AGENT_VERSION, p.tenantId(), new ResourceFilter(true, id, null, List.of(), true), page);
        return ListResult.of(rows.map(AgentService::wire), page);
    }

    public Agent update(Principal p, String id, Map<String, Object> body) {
        Callers.requireApiKey(p, "update agents");
        Fields.allowOnly(body, UPDATE_FIELDS, "");
        Resource r = find(p, id);
        if (r.archivedAt() != null) throw new PaddockException(ErrorCode.AGENT_ARCHIVED, "agent " + id + " is archived and cannot be updated");
        Object expected = body.get("version");
        if (expected != null && !(expected instanceof Number n && n.longValue() == r.version())) {
            throw new PaddockException(ErrorCode.VERSION_MISMATCH, "agent " + id + " is at version " + r.version()
                    + ", not " + expected + "; retrieve it and apply the change again");
        }
        Agent a = Agent.fromWire(r.body());
        String name = body.containsKey("name") ? Fields.requiredString(body, "name", 256) : a.name();
        String description = body.containsKey("description") ? Fields.optionalString(body, "description", 2048) : a.description();
        String system = body.containsKey("system") ? Fields.optionalString(body, "system", 100_000) : a.system();
        Agent.Model model = body.get("model") != null ? AgentSpec.model(body.get("model"), true) : a.model();
        List<Agent.McpServer> servers = body.containsKey("mcp_servers") ? AgentSpec.mcpServers(body.get("mcp_servers")) : a.mcpServers();
        List<AgentTool> tools = body.containsKey("tools") ? AgentSpec.tools(body.get("tools"), servers) : a.tools();
        List<AgentSkill> skills = body.containsKey("skills") ? skills(p, body.get("skills")) : a.skills();
        Map<String, String> metadata = body.containsKey("metadata") ? Fields.patchMetadata(a.metadata(), body.get("metadata"), "metadata") : a.metadata();
        Instant now = clock.instant();
        long next = r.version() + 1;
        Agent agent = new Agent(id, name, description, system, model, servers, tools, skills, metadata, next, a.createdAt(), Times.iso(now),
                a.archivedAt());
        Resource updated = store.update(r.withBody(agent.toWire(), now).withVersion(next));
        store.insert(versionOf(updated));
        return agent;
    }

    public Agent archive(Principal p, String id) {
        Callers.requireApiKey(p, "archive agents");
        Resource r = find(p, id);
        if (r.archivedAt() != null) return Agent.fromWire(r.body());
        Instant now = clock.instant();
        Agent agent = Agent.fromWire(r.body()).archive(Times.iso(now));
        return Agent.fromWire(store.update(r.archived(now).withBody(agent.toWire(), now)).body());
    }

    /** The request's skills, each resolved to a version of a skill here; two may not share a name (their directory). */
    private List<AgentSkill> skills(Principal p, Object raw) {
        List<AgentSkill> out = AgentSpec.skills(raw, (where, type, id, version) -> skills.resolve(p.tenantId(), where, type, id, version));
        Set<String> names = new HashSet<>();
        for (AgentSkill s : out) {
            String name = skills.version(p.tenantId(), s).map(SkillService.Version::name).orElse(s.skillId());
            if (!names.add(name)) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'skills': two skills are named '" + name
                        + "', and each skill's files go to skills/<name>/; keep one of them");
            }
        }
        return out;
    }

    private static Map<String, Object> wire(Resource r) {
        return Agent.fromWire(r.body()).toWire();
    }

    Resource find(Principal p, String id) {
        ResourceIds.require(PREFIX, id, "agent_id");
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
