package dev.paddock.agents;

import dev.paddock.agents.mcp.McpToolNames;
import dev.paddock.agents.mcp.McpUrls;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.toolset.AgentToolset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Checks a request's model, tools, MCP servers and skills into the parts of an {@link Agent}; a bad field is a 400 that names it. */
final class AgentSpec {
    private static final Pattern TOOL_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
    private static final Set<String> POLICIES = Set.of("always_allow", "always_ask", "auto");

    private AgentSpec() {}

    static Agent.Model model(Object v, boolean required) {
        if (v == null) {
            if (required) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'model' is required");
            return null;
        }
        if (v instanceof String s) {
            if (s.isBlank() || s.length() > 128) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'model' must be a model id");
            return new Agent.Model(s, null, null, null);
        }
        Map<String, Object> m = Fields.object(v, "model");
        Fields.allowOnly(m, Set.of("id", "effort", "speed", "inference_geo"), "model");
        String id = Fields.requiredString(m, "id", 128);
        Map<String, Object> effort = null;
        if (m.get("effort") instanceof String type) effort = Map.of("type", type);
        else if (m.get("effort") != null) effort = Fields.object(m.get("effort"), "model.effort");
        String speed = m.get("speed") != null ? Fields.optionalString(m, "speed", 16) : null;
        String geo = m.get("inference_geo") != null ? Fields.optionalString(m, "inference_geo", 64) : null;
        return new Agent.Model(id, effort, speed, geo);
    }

    static List<Agent.McpServer> mcpServers(Object v) {
        List<Object> raw = Fields.array(v, "mcp_servers");
        List<Agent.McpServer> out = new ArrayList<>();
        if (raw == null) return out;
        for (int i = 0; i < raw.size(); i++) {
            String where = "mcp_servers[" + i + "]";
            Map<String, Object> s = Fields.object(raw.get(i), where);
            Fields.allowOnly(s, Set.of("name", "type", "url"), where);
            if (s.get("type") != null && !"url".equals(s.get("type"))) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".type' must be 'url'");
            }
            String url = Fields.requiredString(s, "url", 2048);
            if (!url.startsWith("https://") && !url.startsWith("http://")) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".url' must be an http(s) URL");
            }
            if (McpUrls.parse(url).isEmpty()) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".url' must be an absolute http(s) URL with a host and no user info");
            }
            String name = Fields.requiredString(s, "name", 255);
            if (out.stream().anyMatch(o -> o.name().equals(name))) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".name' repeats the MCP server name '" + Text.clip(name, 60) + "'");
            }
            out.add(new Agent.McpServer(name, url));
        }
        return out;
    }

    static List<Object> skills(Object v) {
        List<Object> raw = Fields.array(v, "skills");
        if (raw != null && !raw.isEmpty()) {
            throw new PaddockException(ErrorCode.SKILLS_NOT_SUPPORTED, "Paddock does not run skills yet; send an empty 'skills' list");
        }
        return new ArrayList<>();
    }

    static List<AgentTool> tools(Object v, List<Agent.McpServer> servers) {
        List<Object> raw = Fields.array(v, "tools");
        List<AgentTool> out = new ArrayList<>();
        if (raw == null) return out;
        Set<String> names = new HashSet<>();
        Set<String> mcpToolsets = new HashSet<>();
        for (int i = 0; i < raw.size(); i++) {
            String where = "tools[" + i + "]";
            Map<String, Object> t = Fields.object(raw.get(i), where);
            String type = Fields.requiredString(t, "type", 64);
            switch (type) {
                case AgentToolset.TYPE -> {
                    Fields.allowOnly(t, Set.of("type", "configs", "default_config"), where);
                    AgentTool.Config defaults = config(Fields.object(t.get("default_config"), where + ".default_config"), where + ".default_config", null);
                    List<AgentTool.Config> configs = new ArrayList<>();
                    List<Object> rawConfigs = Fields.array(t.get("configs"), where + ".configs");
                    if (rawConfigs != null) {
                        for (int j = 0; j < rawConfigs.size(); j++) {
                            String cw = where + ".configs[" + j + "]";
                            Map<String, Object> c = Fields.object(rawConfigs.get(j), cw);
                            String name = Fields.requiredString(c, "name", 64);
                            if (!AgentToolset.toolNames().contains(name)) {
                                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + cw + ".name' must be one of " + AgentToolset.toolNames());
                            }
                            configs.add(config(c, cw, name));
                        }
                    }
                    out.add(new AgentTool.Toolset(defaults, configs));
                    names.addAll(AgentToolset.toolNames());
                }
                case AgentTool.Custom.TYPE -> {
                    Fields.allowOnly(t, Set.of("type", "name", "description", "input_schema"), where);
                    String name = Fields.requiredString(t, "name", 64);
                    if (!TOOL_NAME.matcher(name).matches()) {
                        throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".name' must be 1-64 letters, digits, _ or -");
                    }
                    if (McpToolNames.isQualified(name)) {
                        throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".name' must not start with '" + McpToolNames.PREFIX
                                + "', which names MCP tools");
                    }
                    if (!names.add(name)) throw new PaddockException(ErrorCode.DUPLICATE_TOOL, "tool name '" + name + "' is used twice");
                    Map<String, Object> schema = Fields.object(t.get("input_schema"), where + ".input_schema");
                    if (schema == null || !"object".equals(schema.get("type"))) {
                        throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".input_schema' must be a JSON schema with type 'object'");
                    }
                    out.add(new AgentTool.Custom(name, Fields.requiredString(t, "description", 4096), schema));
                }
                case AgentTool.McpToolset.TYPE -> {
                    Fields.allowOnly(t, Set.of("type", "mcp_server_name", "configs", "default_config"), where);
                    String server = Fields.requiredString(t, "mcp_server_name", 255);
                    boolean known = servers.stream().anyMatch(s -> server.equals(s.name()));
                    if (!known) throw new PaddockException(ErrorCode.UNKNOWN_MCP_SERVER, "field '" + where + ".mcp_server_name' names no server in 'mcp_servers'");
                    if (!mcpToolsets.add(server)) {
                        throw new PaddockException(ErrorCode.DUPLICATE_TOOL, "MCP server '" + Text.clip(server, 60) + "' has two mcp_toolset entries");
                    }
                    List<AgentTool.Config> configs = new ArrayList<>();
                    List<Object> rawConfigs = Fields.array(t.get("configs"), where + ".configs");
                    Set<String> configured = new HashSet<>();
                    for (int j = 0; rawConfigs != null && j < rawConfigs.size(); j++) {
                        String cw = where + ".configs[" + j + "]";
                        Map<String, Object> c = Fields.object(rawConfigs.get(j), cw);
                        String name = Fields.requiredString(c, "name", 128);
                        if (!configured.add(name)) throw new PaddockException(ErrorCode.DUPLICATE_TOOL, "field '" + cw + ".name' configures '" + Text.clip(name, 60) + "' twice");
                        configs.add(config(c, cw, name));
                    }
                    out.add(new AgentTool.McpToolset(server,
                            config(Fields.object(t.get("default_config"), where + ".default_config"), where + ".default_config", null), configs));
                }
                default -> throw new PaddockException(ErrorCode.INVALID_TOOL_TYPE, "field '" + where + ".type' must be "
                        + AgentToolset.TYPE + ", mcp_toolset or custom, got '" + Text.clip(type, 60) + "'");
            }
        }
        return out;
    }

    private static AgentTool.Config config(Map<String, Object> c, String where, String name) {
        Map<String, Object> in = c == null ? Map.of() : c;
        Fields.allowOnly(in, name == null ? Set.of("enabled", "permission_policy") : Set.of("name", "type", "enabled", "permission_policy"), where);
        boolean enabled = Fields.bool(in, "enabled", true);
        Map<String, Object> policy = Fields.object(in.get("permission_policy"), where + ".permission_policy");
        String type = policy == null ? AgentTool.ALWAYS_ALLOW : String.valueOf(policy.get("type"));
        if (!POLICIES.contains(type)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".permission_policy.type' must be one of " + POLICIES);
        return new AgentTool.Config(name, enabled, type);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return o instanceof List<?> l ? (List<Object>) l : List.of();
    }
}
