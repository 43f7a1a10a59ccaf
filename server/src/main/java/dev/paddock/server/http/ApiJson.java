package dev.paddock.server.http;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

/**
 * The API's one JSON mapper: snake_case fields, lower-case enums, ISO-8601 instants, and strict reading (unknown
 * fields, duplicate keys, trailing garbage, strings where numbers belong and fractions where integers belong are
 * all refused). Read errors become 400s whose message names the field and never a Java type.
 */
public final class ApiJson implements io.javalin.json.JsonMapper {
    private final JsonMapper mapper = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(EnumFeature.WRITE_ENUMS_TO_LOWERCASE)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DateTimeFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .withCoercionConfig(LogicalType.Textual, c -> c
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .withCoercionConfigDefaults(c -> c.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
            .build();

    public JsonMapper mapper() {
        return mapper;
    }

    public byte[] write(Object value) {
        return mapper.writeValueAsBytes(value);
    }

    @Override
    public String toJsonString(Object obj, Type type) {
        return mapper.writeValueAsString(obj);
    }

    /**
     * Reads a request body into {@code type}; an empty body reads as {@code {}}. Throws 400s that name the field.
     * The body must be a JSON object whose arrays hold no nulls and whose numbers fit a 64-bit integer or a finite
     * double: handlers and the layers below may then rely on that, whatever type they read the body as.
     */
    public <T> T read(byte[] body, Class<T> type) {
        byte[] json = isBlank(body) ? "{}".getBytes() : body;
        JsonNode tree;
        try {
            tree = mapper.readTree(json);
        } catch (JacksonException e) {
            throw translate(e);
        }
        if (tree == null || !tree.isObject()) {
            String got = tree == null || tree.isNull() ? "null" : tree.isArray() ? "an array" : tree.isString() ? "a string"
                    : tree.isNumber() ? "a number" : tree.isBoolean() ? "a boolean" : "not an object";
            throw new PaddockException(ErrorCode.INVALID_JSON, "the request body must be a JSON object, got " + got);
        }
        JsonChecks.check(tree, "");
        try {
            return mapper.treeToValue(tree, type);
        } catch (JacksonException e) {
            throw translate(e);
        } catch (IllegalArgumentException e) {
            throw new PaddockException(ErrorCode.INVALID_JSON, "the request body is not valid JSON for this endpoint");
        }
    }

    public JsonNode tree(Object value) {
        return mapper.valueToTree(value);
    }

    static PaddockException translate(JacksonException e) {
        String field = fieldPath(e.getPath());
        if (e instanceof UnrecognizedPropertyException u) {
            String known = knownFields(u.getKnownPropertyIds());
            String where = field.contains(".") ? " in " + field.substring(0, field.lastIndexOf('.')) : "";
            return new PaddockException(ErrorCode.UNKNOWN_FIELD, "unknown field '" + Text.clip(u.getPropertyName(), 60) + "'" + where
                    + (known.isEmpty() ? "" : "; allowed fields: " + known));
        }
        if (e instanceof MismatchedInputException m) {
            if (field.isEmpty()) {
                return new PaddockException(ErrorCode.INVALID_JSON, "the request body must be a JSON object");
            }
            return new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' must be " + expected(m.getTargetType()));
        }
        if (e instanceof StreamReadException) {
            String in = field.isEmpty() ? "" : " in field '" + field + "'";
            return new PaddockException(ErrorCode.INVALID_JSON, "malformed JSON" + in + position(e.getLocation()) + ": "
                    + Text.clip(withoutSource(firstLine(e.getOriginalMessage())), 200));
        }
        if (!field.isEmpty()) {
            return new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' has an invalid value");
        }
        return new PaddockException(ErrorCode.INVALID_JSON, "the request body is not valid JSON for this endpoint" + position(e.getLocation()));
    }

    private static String fieldPath(List<JacksonException.Reference> path) {
        StringBuilder sb = new StringBuilder();
        for (JacksonException.Reference r : path) {
            if (r.getPropertyName() != null) {
                if (!sb.isEmpty()) sb.append('.');
                sb.append(Text.clip(r.getPropertyName(), 60));
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private static String knownFields(Collection<Object> ids) {
        if (ids == null) return "";
        return ids.stream().map(String::valueOf).sorted().collect(Collectors.joining(", "));
    }

    /** A JSON-level description of what a Java type accepts, so messages never leak class names. */
    private static String expected(Class<?> t) {
        if (t == null) return "of another type";
        if (t == String.class) return "a string";
        if (t == Boolean.class || t == boolean.class) return "true or false";
        if (t == Integer.class || t == int.class || t == Long.class || t == long.class) return "an integer";
        if (Number.class.isAssignableFrom(t) || t == double.class || t == float.class) return "a number";
        if (Collection.class.isAssignableFrom(t) || t.isArray()) return "an array";
        if (Map.class.isAssignableFrom(t) || t.isRecord()) return "an object";
        if (t.isEnum()) return "one of " + Arrays.stream(t.getEnumConstants())
                .map(c -> ((Enum<?>) c).name().toLowerCase()).collect(Collectors.joining(", "));
        return "of another type";
    }

    /** The parser's own message names its input's location as "[Source: REDACTED ...; byte offset: ...]": noise here. */
    static String withoutSource(String message) {
        return message.replaceAll("\\s*\\(start marker at \\[Source:[^\\]]*\\]\\)", "").replaceAll("\\s*\\[Source:[^\\]]*\\]", "");
    }

    private static String position(TokenStreamLocation loc) {
        if (loc == null || loc.getLineNr() < 0) return "";
        return " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static boolean isBlank(byte[] body) {
        if (body == null) return true;
        for (byte b : body) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') return false;
        }
        return true;
    }
}
