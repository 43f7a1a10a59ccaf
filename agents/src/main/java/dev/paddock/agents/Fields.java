package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/** Checks on request bodies read as plain JSON values; a bad field is a 400 that names it. */
public final class Fields {
    private Fields() {}

    public static void allowOnly(Map<String, ?> m, Set<String> allowed, String where) {
        for (String key : m.keySet()) {
            if (!allowed.contains(key)) {
                throw new PaddockException(ErrorCode.UNKNOWN_FIELD, "unknown field '" + Text.clip(key, 60) + "'" + (where.isEmpty() ? "" : " in " + where)
                        + "; allowed fields: " + String.join(", ", new TreeSet<>(allowed)));
            }
        }
    }

    public static String requiredString(Map<String, ?> m, String field, int max) {
        String s = optionalString(m, field, max);
        if (s == null || s.isBlank()) throw new PaddockException(ErrorCode.MISSING_FIELD, "field '" + field + "' is required");
        return s;
    }

    public static String optionalString(Map<String, ?> m, String field, int max) {
        Object v = m.get(field);
        if (v == null) return null;
        if (!(v instanceof String s)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' must be a string");
        if (s.length() > max) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' must be at most " + max + " characters");
        return s;
    }

    public static boolean bool(Map<String, ?> m, String field, boolean fallback) {
        Object v = m.get(field);
        if (v == null) return fallback;
        if (!(v instanceof Boolean b)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' must be true or false");
        return b;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object v, String field) {
        if (v == null) return null;
        if (!(v instanceof Map<?, ?> m)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' must be an object");
        return (Map<String, Object>) m;
    }

    public static List<Object> array(Object v, String field) {
        if (v == null) return null;
        if (!(v instanceof List<?> l)) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' must be an array");
        return new ArrayList<>(l);
    }

    public static List<String> strings(Object v, String field, int maxItems, Pattern shape, String shapeText) {
        List<Object> raw = array(v, field);
        if (raw == null) return List.of();
        if (raw.size() > maxItems) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' holds at most " + maxItems + " items");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            if (!(raw.get(i) instanceof String s) || (shape != null && !shape.matcher(s).matches())) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "[" + i + "]' must be " + shapeText);
            }
            out.add(s);
        }
        return out;
    }

    /** Metadata: at most 16 string keys (64 chars) with string values (512 chars). */
    public static Map<String, String> metadata(Object v, String field) {
        Map<String, Object> m = object(v, field);
        if (m == null) return new LinkedHashMap<>();
        if (m.size() > 16) throw new PaddockException(ErrorCode.INVALID_METADATA, "field '" + field + "' holds at most 16 keys");
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, val) -> {
            if (k.isEmpty() || k.length() > 64) throw new PaddockException(ErrorCode.INVALID_METADATA, "metadata keys must be 1 to 64 characters");
            if (!(val instanceof String s) || s.length() > 512) {
                throw new PaddockException(ErrorCode.INVALID_METADATA, "metadata value of '" + Text.clip(k, 64) + "' must be a string of at most 512 characters");
            }
            out.put(k, s);
        });
        return out;
    }

    /** Applies a metadata patch: a null value deletes the key. */
    public static Map<String, String> patchMetadata(Map<String, String> current, Object patch, String field) {
        Map<String, String> out = new LinkedHashMap<>(current);
        Map<String, Object> p = object(patch, field);
        if (p == null) return out;
        Map<String, Object> sets = new LinkedHashMap<>();
        p.forEach((k, v) -> {
            if (v == null) out.remove(k);
            else sets.put(k, v);
        });
        out.putAll(metadata(sets, field));
        if (out.size() > 16) throw new PaddockException(ErrorCode.INVALID_METADATA, "field '" + field + "' holds at most 16 keys");
        return out;
    }

    /** Stored metadata (checked when it was written). */
    static Map<String, String> storedMetadata(Object stored) {
        Map<String, String> out = new LinkedHashMap<>();
        if (stored instanceof Map<?, ?> m) m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
        return out;
    }
}
