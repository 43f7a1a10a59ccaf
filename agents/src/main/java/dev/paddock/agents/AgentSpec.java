package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.toolset.AgentToolset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Validation and normalisation of an agent's model, tools, MCP servers and skills into their wire shapes. */
final class AgentSpec {
    private static final Pattern TOOL_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
    private static final Set<String> POLICIES = Set.of("always_allow", "always_ask", "auto");

    private AgentSpec() {}

    static Map<String, Object> model(Object v, boolean required) {
        if (v == null) {
            if (required) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'model' is required");
            return null;
        }
        if (v instanceof String s) {
            if (s.isBlank() || s.length() > 128) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'model' must be a model id");
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", s);
            return m;
        }
        Map<String, Object> m = Fields.object(v, "model");
        Fields.allowOnly(m, Set.of("id", "effort", "speed", "inference_geo"), "model");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", Fields.requiredString(m, "id", 128));
        if (m.get("effort") instanceof String effort) out.put("effort", Map.of("type", effort));
        else if (m.get("effort") != null) out.put("effort", Fields.object(m.get("effort"), "model.effort"));
        if (m.get("speed") != null) out.put("speed", Fields.optionalString(m, "speed", 16));
        if (m.get("inference_geo") != null) out.put("inference_geo", Fields.optionalString(m, "inference_geo", 64));
        return out;
    }

    static List<Object> mcpServers(Object v) {
        List<Object> raw = Fields.array(v, "mcp_servers");
        List<Object> out = new ArrayList<>();
        if (raw == null) return out;
        for (int i = 0; i < raw.size(); i++) {
            String where = "mcp_servers[" + i + "]";
            Map<String, Object> s = Fields.object(raw.get(i), where);
            Fields.allowOnly(s, Set.of("name", "type", "url"), where);
            String url = Fields.requiredString(s, "url", 2048);
            if (!url.startsWith("https://") && !url.startsWith("http://")) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".url' must be an http(s) URL");
            }
            out.add(Map.of("name", Fields.requiredString(s, "name", 128), "type", "url", "url", url));
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

    static List<Object> tools(Object v, List<Object> servers) {
        List<Object> raw = Fields.array(v, "tools");
        List<Object> out = new ArrayList<>();
        if (raw == null) return out;
        Set<String> names = new java.util.HashSet<>();
        for (int i = 0; i < raw.size(); i++) {
            String where = "tools[" + i + "]";
            Map<String, Object> t = Fields.object(raw.get(i), where);
            String type = Fields.requiredString(t, "type", 64);
            switch (type) {
                case AgentToolset.TYPE -> {
                    Fields.allowOnly(t, Set.of("type", "configs", "default_config"), where);
                    Map<String, Object> toolset = new LinkedHashMap<>();
                    toolset.put("type", type);
                    toolset.put("default_config", config(Fields.object(t.get("default_config"), where + ".default_config"), where + ".default_config", null));
                    List<Object> configs = new ArrayList<>();
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
                    toolset.put("configs", configs);
                    out.add(toolset);
                    names.addAll(AgentToolset.toolNames());
                }
                case "custom" -> {
                    Fields.allowOnly(t, Set.of("type", "name", "description", "input_schema"), where);
                    String name = Fields.requiredString(t, "name", 64);
                    if (!TOOL_NAME.matcher(name).matches()) {
                        throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".name' must be 1-64 letters, digits, _ or -");
                    }
                    if (!names.add(name)) throw new PaddockException(ErrorCode.DUPLICATE_TOOL, "tool name '" + name + "' is used twice");
                    Map<String, Object> schema = Fields.object(t.get("input_schema"), where + ".input_schema");
                    if (schema == null || !"object".equals(schema.get("type"))) {
                        throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".input_schema' must be a JSON schema with type 'object'");
                    }
                    Map<String, Object> custom = new LinkedHashMap<>();
                    custom.put("type", "custom");
                    custom.put("name", name);
                    custom.put("description", Fields.requiredString(t, "description", 4096));
                    custom.put("input_schema", schema);
                    out.add(custom);
                }
                case "mcp_toolset" -> {
                    Fields.allowOnly(t, Set.of("type", "mcp_server_name", "configs", "default_config"), where);
                    String server = Fields.requiredString(t, "mcp_server_name", 128);
                    boolean known = servers.stream().anyMatch(s -> server.equals(map(s).get("name")));
                    if (!known) throw new PaddockException(ErrorCode.UNKNOWN_MCP_SERVER, "field '" + where + ".mcp_server_name' names no server in 'mcp_servers'");
                    Map<String, Object> toolset = new LinkedHashMap<>();
                    toolset.put("type", type);
                    toolset.put("mcp_server_name", server);
                    toolset.put("default_config", config(Fields.object(t.get("default_config"), where + ".default_config"), where + ".default_config", null));
                    toolset.put("configs", new ArrayList<>());
                    out.add(toolset);
                }
                default -> throw new PaddockException(ErrorCode.INVALID_TOOL_TYPE, "field '" + where + ".type' must be "
                        + AgentToolset.TYPE + ", mcp_toolset or custom, got '" + Text.clip(type, 60) + "'");
            }
        }
        return out;
    }

    private static Map<String, Object> config(Map<String, Object> c, String where, String name) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (name != null) out.put("name", name);
        if (name != null) out.put("type", name);
        Map<String, Object> in = c == null ? Map.of() : c;
        Fields.allowOnly(in, name == null ? Set.of("enabled", "permission_policy") : Set.of("name", "type", "enabled", "permission_policy"), where);
        out.put("enabled", Fields.bool(in, "enabled", true));
        Map<String, Object> policy = Fields.object(in.get("permission_policy"), where + ".permission_policy");
        String type = policy == null ? "always_allow" : String.valueOf(policy.get("type"));
        if (!POLICIES.contains(type)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + ".permission_policy.type' must be one of " + POLICIES);
        out.put("permission_policy", Map.of("type", type));
        return out;
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
