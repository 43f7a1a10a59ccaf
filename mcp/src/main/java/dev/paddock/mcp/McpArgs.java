package dev.paddock.mcp;

import dev.paddock.core.Text;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Typed, validating access to an MCP tool call's arguments; every failure names the field and what to send. */
final class McpArgs {
    private final String tool;
    private final Map<String, Object> values;

    McpArgs(String tool, Map<String, Object> values) {
        this.tool = tool;
        this.values = values == null ? Map.of() : values;
    }

    McpArgs allowOnly(Set<String> fields) {
        for (String key : values.keySet()) {
            if (!fields.contains(key)) {
                throw fail("unknown argument '" + Text.clip(key, 60) + "'; allowed: " + String.join(", ", new TreeSet<>(fields)));
            }
        }
        return this;
    }

    String requiredString(String field) {
        String s = optionalString(field);
        if (s == null || s.isEmpty()) throw fail(field + " is required (a non-empty string)");
        return s;
    }

    String optionalString(String field) {
        Object v = values.get(field);
        if (v == null) return null;
        if (v instanceof String s) return s;
        throw fail(field + " must be a string");
    }

    boolean optionalBoolean(String field) {
        Object v = values.get(field);
        if (v == null) return false;
        if (v instanceof Boolean b) return b;
        throw fail(field + " must be a boolean");
    }

    /** A boolean that may be left out (null), where absent means a default the caller decides. */
    Boolean optionalFlag(String field) {
        return values.containsKey(field) ? optionalBoolean(field) : null;
    }

    Long optionalInteger(String field, long min, long max) {
        Object v = values.get(field);
        if (v == null) return null;
        long n;
        if (v instanceof Integer || v instanceof Long) n = ((Number) v).longValue();
        else if (v instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue()) && Math.abs(num.doubleValue()) < 1e15) n = num.longValue();
        else throw fail(field + " must be an integer");
        if (n < min || n > max) throw fail(field + " must be between " + min + " and " + max + ", got " + n);
        return n;
    }

    List<String> optionalStringList(String field) {
        Object v = values.get(field);
        if (v == null) return null;
        if (!(v instanceof List<?> list)) throw fail(field + " must be an array of strings");
        List<String> out = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof String s)) throw fail(field + " must be an array of strings");
            out.add(s);
        }
        return out;
    }

    Map<String, String> optionalStringMap(String field) {
        Object v = values.get(field);
        if (v == null) return null;
        if (!(v instanceof Map<?, ?> map)) throw fail(field + " must be an object of string values");
        Map<String, String> out = new LinkedHashMap<>();
        for (var e : map.entrySet()) {
            if (!(e.getValue() instanceof String s)) throw fail(field + "." + Text.clip(String.valueOf(e.getKey()), 60) + " must be a string");
            out.put(String.valueOf(e.getKey()), s);
        }
        return out;
    }

    /** The arguments without {@code field}, for passing the rest on. */
    Map<String, Object> without(String field) {
        Map<String, Object> rest = new LinkedHashMap<>(values);
        rest.remove(field);
        return rest;
    }

    McpToolException fail(String message) {
        return new McpToolException(tool + ": " + message);
    }
}
