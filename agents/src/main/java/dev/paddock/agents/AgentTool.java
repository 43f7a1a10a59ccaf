package dev.paddock.agents;

import dev.paddock.toolset.AgentToolset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One entry of an agent's {@code tools}: Paddock's built-in toolset, an MCP server's tools, or a custom tool. */
public sealed interface AgentTool {
    String ALWAYS_ALLOW = "always_allow";
    String ALWAYS_ASK = "always_ask";

    Map<String, Object> toWire();

    /**
     * A tool's settings: whether it is enabled and its permission policy; {@code name} is set for one built-in
     * tool's own config and null for a toolset's default.
     */
    record Config(String name, boolean enabled, String policy) {
        static final Config DEFAULT = new Config(null, true, ALWAYS_ALLOW);

        Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            if (name != null) {
                m.put("name", name);
                m.put("type", name);
            }
            m.put("enabled", enabled);
            m.put("permission_policy", Map.of("type", policy));
            return m;
        }

        static Config fromWire(Map<String, Object> m) {
            Object policy = AgentSpec.map(m.get("permission_policy")).getOrDefault("type", ALWAYS_ALLOW);
            return new Config(m.get("name") instanceof String s ? s : null, !Boolean.FALSE.equals(m.get("enabled")), String.valueOf(policy));
        }
    }

    /** Paddock's built-in tools ({@link AgentToolset#TYPE}). */
    record Toolset(Config defaultConfig, List<Config> configs) implements AgentTool {
        public Toolset {
            configs = List.copyOf(configs);
        }

        /** A tool's own config, else the toolset's default. */
        public Config configOf(String tool) {
            for (Config c : configs) if (tool.equals(c.name())) return c;
            return defaultConfig;
        }

        @Override
        public Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", AgentToolset.TYPE);
            m.put("default_config", defaultConfig.toWire());
            m.put("configs", wire(configs));
            return m;
        }
    }

    /**
     * The tools of one of the agent's MCP servers: {@code configs} override the default for the tools they name
     * (the server decides which tools exist, so a name is not checked against it).
     */
    record McpToolset(String serverName, Config defaultConfig, List<Config> configs) implements AgentTool {
        static final String TYPE = "mcp_toolset";

        public McpToolset {
            configs = List.copyOf(configs);
        }

        /** A tool's own config, else the toolset's default. */
        public Config configOf(String tool) {
            for (Config c : configs) if (tool.equals(c.name())) return c;
            return defaultConfig;
        }

        @Override
        public Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", TYPE);
            m.put("mcp_server_name", serverName);
            m.put("default_config", defaultConfig.toWire());
            m.put("configs", wireMcp(configs));
            return m;
        }
    }

    /** A tool the user's client runs; {@code inputSchema} is passed through as sent. */
    record Custom(String name, String description, Map<String, Object> inputSchema) implements AgentTool {
        static final String TYPE = "custom";

        @Override
        public Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", TYPE);
            m.put("name", name);
            m.put("description", description);
            m.put("input_schema", inputSchema);
            return m;
        }
    }

    /** Reads a stored entry; null for a type this version does not know. */
    static AgentTool fromWire(Map<String, Object> m) {
        Config defaults = Config.fromWire(AgentSpec.map(m.get("default_config")));
        Object type = m.get("type");
        if (AgentToolset.TYPE.equals(type)) {
            List<Config> configs = new ArrayList<>();
            for (Object c : AgentSpec.list(m.get("configs"))) configs.add(Config.fromWire(AgentSpec.map(c)));
            return new Toolset(defaults, configs);
        }
        if (McpToolset.TYPE.equals(type)) {
            List<Config> configs = new ArrayList<>();
            for (Object c : AgentSpec.list(m.get("configs"))) configs.add(Config.fromWire(AgentSpec.map(c)));
            return new McpToolset((String) m.get("mcp_server_name"), defaults, configs);
        }
        if (Custom.TYPE.equals(type)) {
            return new Custom((String) m.get("name"), (String) m.get("description"), AgentSpec.map(m.get("input_schema")));
        }
        return null;
    }

    /** An MCP tool's config carries its name only (no {@code type}: the SDK's MCP tool configs have none). */
    private static List<Object> wireMcp(List<Config> configs) {
        List<Object> out = new ArrayList<>();
        for (Config c : configs) {
            Map<String, Object> m = c.toWire();
            m.remove("type");
            out.add(m);
        }
        return out;
    }

    private static List<Object> wire(List<Config> configs) {
        List<Object> out = new ArrayList<>();
        for (Config c : configs) out.add(c.toWire());
        return out;
    }
}
