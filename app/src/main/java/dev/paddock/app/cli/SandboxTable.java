package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
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
        JsonNode limits = Fields.object(s, "limits");
        Long memory = Fields.integer(limits, "memory_bytes");
        t.row(Fields.requiredString(s, "id"), Fields.string(s, "state"), Fields.string(s, "driver"),
                memory != null ? Units.formatSize(memory) : "", Fields.number(limits, "pids"), Fields.number(limits, "cpus"),
                age(Fields.string(s, "created_at")));
    }

    /** The fields every sandbox answer has, checked: its id and its state. */
    static JsonNode checked(JsonNode sandbox) {
        Fields.requiredString(sandbox, "id");
        Fields.string(sandbox, "state");
        Fields.string(sandbox, "driver");
        Fields.string(sandbox, "created_at");
        return sandbox;
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
        flatten("", checked(node), t);
        return t;
    }

    private static void flatten(String prefix, JsonNode node, Table t) {
        for (var e : node.properties()) {
            String key = prefix + e.getKey();
            JsonNode v = e.getValue();
            if (v.isObject() && !v.isEmpty()) flatten(key + ".", v, t);
            else t.row(key, v.isNull() ? "-" : Fields.anyValue(node, e.getKey(), Fields.MAX_SHOWN_CHARS));
        }
    }
}
