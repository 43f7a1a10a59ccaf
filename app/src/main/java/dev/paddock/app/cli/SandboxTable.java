package dev.paddock.app.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import tools.jackson.databind.JsonNode;

/** How a sandbox object reads in a terminal. */
final class SandboxTable {
    private SandboxTable() {}

    static Table table() {
        return new Table("ID", "STATE", "DRIVER", "MEMORY", "PIDS", "CPUS", "AGE");
    }

    static void addRow(Table t, JsonNode s) {
        JsonNode limits = s.path("limits");
        t.row(ClientCommand.text(s, "id"), ClientCommand.text(s, "state"), ClientCommand.text(s, "driver"),
                limits.has("memory_bytes") ? Units.formatSize(limits.path("memory_bytes").asLong()) : "",
                ClientCommand.text(limits, "pids"), ClientCommand.text(limits, "cpus"), age(ClientCommand.text(s, "created_at")));
    }

    static String age(String createdAt) {
        if (createdAt == null) return "";
        try {
            return Units.formatDuration(Duration.between(Instant.parse(createdAt), Instant.now()));
        } catch (DateTimeParseException e) {
            return "";
        }
    }

    /** Every field of the object as aligned "key: value" lines, nested objects flattened with dots. */
    static Table details(JsonNode node) {
        Table t = new Table("FIELD", "VALUE");
        flatten("", node, t);
        return t;
    }

    private static void flatten(String prefix, JsonNode node, Table t) {
        for (var e : node.properties()) {
            String key = prefix + e.getKey();
            JsonNode v = e.getValue();
            if (v.isObject() && !v.isEmpty()) flatten(key + ".", v, t);
            else t.row(key, v.isNull() ? "-" : v.isValueNode() ? v.asString() : v.toString());
        }
    }
}
