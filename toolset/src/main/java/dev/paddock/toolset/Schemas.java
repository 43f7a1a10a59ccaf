package dev.paddock.toolset;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Small builders for the JSON schemas of tool inputs (plain maps, so any JSON library can serialize them), for the
 * agent toolset and the MCP tools alike.
 */
public final class Schemas {
    private Schemas() {}

    public static Map<String, Object> object(Map<String, Object> properties, List<String> required) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", properties);
        if (!required.isEmpty()) s.put("required", required);
        s.put("additionalProperties", false);
        return s;
    }

    public static Map<String, Object> props(Object... nameThenSchema) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < nameThenSchema.length; i += 2) m.put((String) nameThenSchema[i], nameThenSchema[i + 1]);
        return m;
    }

    /** A value of one JSON type: string, boolean, integer, ... */
    public static Map<String, Object> type(String type, String description) {
        return Map.of("type", type, "description", description);
    }

    public static Map<String, Object> string(String description) {
        return type("string", description);
    }

    public static Map<String, Object> bool(String description) {
        return type("boolean", description);
    }

    public static Map<String, Object> integer(String description) {
        return type("integer", description);
    }

    public static Map<String, Object> integerArray(String description) {
        return Map.of("type", "array", "items", Map.of("type", "integer"), "description", description);
    }
}
