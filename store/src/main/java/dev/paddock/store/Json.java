package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.util.Collections;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** JSON columns: sandbox specs and event data. */
final class Json {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
    // Unknown fields are skipped so a record written by a newer build still loads after a downgrade;
    // an object with nothing to serialise is refused rather than silently stored as {}.
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    private Json() {}

    /** Paddock's own records (a sandbox spec, lists of names): one that cannot be written is a bug. */
    static String write(Object value, String what) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JacksonException e) {
            throw PaddockException.internal(what.replace('_', ' ') + " cannot be stored as JSON", e);
        }
    }

    /** Data a client sent: {@code refused} says which part cannot be stored. */
    static String write(Object value, String what, ErrorCode refused) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JacksonException e) {
            throw new PaddockException(refused, what.replace('_', ' ') + " cannot be stored as JSON: "
                    + "use strings, numbers, booleans, lists and maps only");
        }
    }

    static <T> T read(String json, Class<T> type, String what) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JacksonException e) {
            throw unreadable(what, e);
        }
    }

    /** The parser's own message may quote the stored text (an env value, say), so only its kind is kept. */
    private static PaddockException unreadable(String what, JacksonException e) {
        return PaddockException.internal("stored " + what.replace('_', ' ') + " is not readable JSON ("
                + e.getClass().getSimpleName() + ")", null);
    }

    static Map<String, Object> readMap(String json, String what) {
        try {
            return Collections.unmodifiableMap(MAPPER.readValue(json, MAP));
        } catch (JacksonException e) {
            throw unreadable(what, e);
        }
    }
}
