package dev.paddock.agents;

import java.util.LinkedHashMap;
import java.util.Map;

/** The answer to a delete: the id and a {@code *_deleted} type. */
record Deleted(String id, String type) {
    Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", type);
        return m;
    }
}
