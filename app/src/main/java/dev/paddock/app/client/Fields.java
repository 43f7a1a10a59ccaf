package dev.paddock.app.client;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.MissingNode;

/**
 * The one place the CLI reads the fields of an answer it shows: each field must have the type the API gives it (a
 * string, an integer, a boolean, an object, an array), or the answer is refused as {@code invalid_response} naming
 * the field, never printed as it came. Strings come back safe for a terminal ({@link Terminal#escape}) and at most
 * {@link #MAX_SHOWN_CHARS} long. Absent and null fields read as absent (null, or the default asked for).
 */
public final class Fields {
    /** The longest string a field may hold to be shown: a path (4096 bytes) with room; more is no field of this API. */
    public static final int MAX_SHOWN_CHARS = 16 * 1024;

    private Fields() {}

    /** The body of an answer that must be one JSON object. */
    public static JsonNode object(byte[] body) {
        JsonNode n = PaddockClient.parse(body);
        if (!n.isObject()) throw invalid("the answer is not a JSON object");
        return n;
    }

    /** A string field, escaped for the terminal; null when absent. */
    public static String string(JsonNode n, String field) {
        JsonNode v = n.path(field);
        if (absent(v)) return null;
        if (!v.isString()) throw wrongType(field, v, "a string");
        String s = v.stringValue();
        if (s.length() > MAX_SHOWN_CHARS) throw invalid("the answer's field '" + field + "' is over " + MAX_SHOWN_CHARS + " characters");
        return Terminal.escape(s);
    }

    /** A string field that must be there. */
    public static String requiredString(JsonNode n, String field) {
        String s = string(n, field);
        if (s == null) throw invalid("the answer lacks the field '" + field + "'");
        return s;
    }

    /** An integer field; null when absent. */
    public static Long integer(JsonNode n, String field) {
        JsonNode v = n.path(field);
        if (absent(v)) return null;
        if (!v.isIntegralNumber() || !v.canConvertToLong()) throw wrongType(field, v, "an integer");
        return v.longValue();
    }

    public static long integer(JsonNode n, String field, long otherwise) {
        Long v = integer(n, field);
        return v == null ? otherwise : v;
    }

    /** A number field (integer or not), as text; null when absent. */
    public static String number(JsonNode n, String field) {
        JsonNode v = n.path(field);
        if (absent(v)) return null;
        if (!v.isNumber()) throw wrongType(field, v, "a number");
        return v.isIntegralNumber() ? v.bigIntegerValue().toString() : String.valueOf(v.doubleValue());
    }

    public static boolean bool(JsonNode n, String field, boolean otherwise) {
        JsonNode v = n.path(field);
        if (absent(v)) return otherwise;
        if (!v.isBoolean()) throw wrongType(field, v, "true or false");
        return v.booleanValue();
    }

    /** An object field; an empty (missing) node when absent. */
    public static JsonNode object(JsonNode n, String field) {
        JsonNode v = n.path(field);
        if (absent(v)) return MissingNode.getInstance();
        if (!v.isObject()) throw wrongType(field, v, "an object");
        return v;
    }

    /** An array of objects (a page's {@code data}); empty when absent. */
    public static List<JsonNode> objects(JsonNode n, String field) {
        List<JsonNode> items = new ArrayList<>();
        for (JsonNode item : array(n, field)) {
            if (!item.isObject()) throw wrongType(field + "[" + items.size() + "]", item, "an object");
            items.add(item);
        }
        return items;
    }

    /** An array of strings, each escaped; empty when absent. */
    public static List<String> strings(JsonNode n, String field) {
        List<String> items = new ArrayList<>();
        for (JsonNode item : array(n, field)) {
            if (!item.isString()) throw wrongType(field + "[" + items.size() + "]", item, "a string");
            if (item.stringValue().length() > MAX_SHOWN_CHARS) throw invalid("the answer's field '" + field + "' holds a string over " + MAX_SHOWN_CHARS + " characters");
            items.add(Terminal.escape(item.stringValue()));
        }
        return items;
    }

    /** Any JSON value, shown as compact JSON (escaped, cut to {@code max} characters); null when absent. */
    public static String anyValue(JsonNode n, String field, int max) {
        JsonNode v = n.path(field);
        if (absent(v)) return null;
        String s = v.isString() ? v.stringValue() : Json.string(v);
        return Terminal.escape(s.length() > max ? s.substring(0, max) + "…" : s);
    }

    private static JsonNode array(JsonNode n, String field) {
        JsonNode v = n.path(field);
        if (absent(v)) return MissingNode.getInstance();
        if (!v.isArray()) throw wrongType(field, v, "an array");
        return v;
    }

    private static boolean absent(JsonNode v) {
        return v.isMissingNode() || v.isNull();
    }

    private static ApiException wrongType(String field, JsonNode v, String expected) {
        return invalid("the answer's field '" + Terminal.escape(field) + "' is " + describe(v) + " where " + expected + " belongs");
    }

    private static String describe(JsonNode v) {
        if (v.isString()) return "a string";
        if (v.isNumber()) return "a number";
        if (v.isBoolean()) return "a boolean";
        if (v.isArray()) return "an array";
        if (v.isObject()) return "an object";
        return "another kind of value";
    }

    static ApiException invalid(String message) {
        return new ApiException(200, "invalid_response", "invalid_response", message);
    }
}
