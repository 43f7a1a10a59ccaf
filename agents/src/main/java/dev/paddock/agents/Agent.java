package dev.paddock.agents;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One version of an agent: its model, system prompt, tools and MCP servers. Requests are checked into it by
 * {@link AgentSpec}; {@link #toWire()} is its one wire (and stored) shape and {@link #snapshot()} the copy a
 * session keeps of it.
 *
 * @param skills the skills it carries, each pinned to a version
 * @param createdAt ISO-8601, as on the wire; likewise {@code updatedAt} and {@code archivedAt} (null while live)
 */
public record Agent(String id, String name, String description, String system, Model model, List<McpServer> mcpServers,
                    List<AgentTool> tools, List<AgentSkill> skills, Map<String, String> metadata, long version,
                    String createdAt, String updatedAt, String archivedAt) {
    static final String TYPE = "agent";

    /** The model and its settings; {@code effort} is passed through as sent (an object). */
    public record Model(String id, Map<String, Object> effort, String speed, String inferenceGeo) {
        Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id);
            if (effort != null) m.put("effort", effort);
            if (speed != null) m.put("speed", speed);
            if (inferenceGeo != null) m.put("inference_geo", inferenceGeo);
            return m;
        }

        static Model fromWire(Map<String, Object> m) {
            return new Model(str(m.get("id")), m.get("effort") == null ? null : AgentSpec.map(m.get("effort")), str(m.get("speed")),
                    str(m.get("inference_geo")));
        }
    }

    /** An MCP server reached over HTTP(S). */
    public record McpServer(String name, String url) {
        Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("type", "url");
            m.put("url", url);
            return m;
        }
    }

    public Agent {
        mcpServers = List.copyOf(mcpServers);
        tools = List.copyOf(tools);
        skills = List.copyOf(skills);
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }

    public boolean archived() {
        return archivedAt != null;
    }

    Agent archive(String at) {
        return new Agent(id, name, description, system, model, mcpServers, tools, skills, metadata, version, createdAt, at, at);
    }

    /** The agent as answered and stored. */
    public Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", TYPE);
        m.put("name", name);
        m.put("description", description);
        m.put("system", system);
        m.put("model", model.toWire());
        m.put("mcp_servers", servers());
        m.put("tools", toolsWire());
        List<Object> skillsWire = new ArrayList<>();
        for (AgentSkill s : skills) skillsWire.add(s.toWire());
        m.put("skills", skillsWire);
        m.put("metadata", new LinkedHashMap<>(metadata));
        m.put("execution_identity", Map.of("type", "service_account"));
        m.put("multiagent", null);
        m.put("version", version);
        m.put("created_at", createdAt);
        m.put("updated_at", updatedAt);
        m.put("archived_at", archivedAt);
        return m;
    }

    /** The copy of this version a session keeps ({@code agent} of a session): what it runs, without metadata or times. */
    public Map<String, Object> snapshot() {
        Map<String, Object> wire = toWire();
        Map<String, Object> m = new LinkedHashMap<>();
        for (String key : SNAPSHOT_KEYS) m.put(key, wire.get(key));
        return m;
    }

    /** What a session's copy keeps of {@link #toWire}, in the order it is written. */
    private static final List<String> SNAPSHOT_KEYS = List.of("id", "type", "name", "description", "system", "model", "tools",
            "mcp_servers", "skills", "execution_identity", "multiagent", "version");

    /** Reads a stored agent or a session's snapshot of one; what a snapshot lacks reads as absent. */
    public static Agent fromWire(Map<String, Object> m) {
        List<McpServer> servers = new ArrayList<>();
        for (Object o : AgentSpec.list(m.get("mcp_servers"))) {
            Map<String, Object> s = AgentSpec.map(o);
            servers.add(new McpServer(str(s.get("name")), str(s.get("url"))));
        }
        List<AgentTool> tools = new ArrayList<>();
        for (Object o : AgentSpec.list(m.get("tools"))) {
            AgentTool t = AgentTool.fromWire(AgentSpec.map(o));
            if (t != null) tools.add(t);
        }
        List<AgentSkill> skills = new ArrayList<>();
        for (Object o : AgentSpec.list(m.get("skills"))) skills.add(AgentSkill.fromWire(AgentSpec.map(o)));
        Map<String, String> metadata = Fields.storedMetadata(m.get("metadata"));
        long version = m.get("version") instanceof Number n ? n.longValue() : 0;
        return new Agent(str(m.get("id")), str(m.get("name")), str(m.get("description")), str(m.get("system")),
                Model.fromWire(AgentSpec.map(m.get("model"))), servers, tools, skills, metadata, version,
                str(m.get("created_at")), str(m.get("updated_at")), str(m.get("archived_at")));
    }

    private List<Object> servers() {
        List<Object> out = new ArrayList<>();
        for (McpServer s : mcpServers) out.add(s.toWire());
        return out;
    }

    private List<Object> toolsWire() {
        List<Object> out = new ArrayList<>();
        for (AgentTool t : tools) out.add(t.toWire());
        return out;
    }

    private static String str(Object o) {
        return o instanceof String s ? s : null;
    }
}
