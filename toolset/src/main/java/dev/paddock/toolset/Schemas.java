package dev.paddock.toolset;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small builders for the JSON schemas of tool inputs (plain maps, so any JSON library can serialize them). */
final class Schemas {
    private Schemas() {}

    static Map<String, Object> object(Map<String, Object> properties, List<String> required) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", properties);
        if (!required.isEmpty()) s.put("required", required);
        s.put("additionalProperties", false);
        return s;
    }

    static Map<String, Object> props(Object... nameThenSchema) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < nameThenSchema.length; i += 2) m.put((String) nameThenSchema[i], nameThenSchema[i + 1]);
        return m;
    }

    static Map<String, Object> string(String description) {
        return Map.of("type", "string", "description", description);
    }

    static Map<String, Object> bool(String description) {
        return Map.of("type", "boolean", "description", description);
    }

    static Map<String, Object> integer(String description) {
        return Map.of("type", "integer", "description", description);
    }

    static Map<String, Object> integerArray(String description) {
        return Map.of("type", "array", "items", Map.of("type", "integer"), "description", description);
    }
}
