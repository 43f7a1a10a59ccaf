package dev.paddock.toolset;

import dev.paddock.core.Text;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed, validating access to a tool call's JSON input (as a map of plain Java values: String, Boolean, Number,
 * List, Map). Every accessor fails with a {@link ToolInputException} naming the field and the expected type.
 */
final class ToolInput {
    private final String tool;
    private final Map<String, ?> values;

    ToolInput(String tool, Map<String, ?> values) {
        this.tool = tool;
        this.values = values == null ? Map.of() : values;
    }

    /** Refuses fields the tool does not define, so a misspelt field is reported instead of silently ignored. */
    ToolInput allowOnly(Set<String> fields) {
        for (String key : values.keySet()) {
            if (!fields.contains(key)) {
                throw fail("unknown field '" + Text.clip(key, 60) + "'; allowed: " + String.join(", ", new TreeSet<>(fields)));
            }
        }
        return this;
    }

    String requiredString(String field) {
        String s = optionalString(field);
        if (s == null) throw fail(field + " is required (a string)");
        return s;
    }

    /** A string that must also be non-empty. */
    String requiredNonEmpty(String field) {
        String s = requiredString(field);
        if (s.isEmpty()) throw fail(field + " must not be empty");
        return s;
    }

    String optionalString(String field) {
        Object v = values.get(field);
        if (v == null) return null;
        if (v instanceof String s) {
            if (s.indexOf('\0') >= 0) throw fail(field + " must not contain NUL characters");
            return s;
        }
        throw fail(field + " must be a string, got " + typeName(v));
    }

    boolean optionalBoolean(String field) {
        Object v = values.get(field);
        if (v == null) return false;
        if (v instanceof Boolean b) return b;
        throw fail(field + " must be a boolean, got " + typeName(v));
    }

    Long optionalInteger(String field) {
        Object v = values.get(field);
        if (v == null) return null;
        return integer(field, v);
    }

    List<Long> optionalIntegerList(String field) {
        Object v = values.get(field);
        if (v == null) return null;
        if (!(v instanceof List<?> list)) throw fail(field + " must be an array of integers, got " + typeName(v));
        List<Long> out = new ArrayList<>(list.size());
        for (Object item : list) out.add(integer(field, item));
        return out;
    }

    ToolInputException fail(String message) {
        return new ToolInputException(tool + ": " + message);
    }

    private long integer(String field, Object v) {
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) return ((Number) v).longValue();
        if (v instanceof Number n) {
            double d = n.doubleValue();
            if (d == Math.rint(d) && Math.abs(d) < 1e15) return (long) d;
        }
        throw fail(field + " must be an integer, got " + typeName(v));
    }

    private static String typeName(Object v) {
        return switch (v) {
            case String s -> "a string";
            case Boolean b -> "a boolean";
            case Number n -> "the number " + n;
            case List<?> l -> "an array";
            case Map<?, ?> m -> "an object";
            default -> v.getClass().getSimpleName();
        };
    }
}
