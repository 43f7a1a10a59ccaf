package dev.paddock.server.wire;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.util.Map;
import java.util.regex.Pattern;

/** Field checks shared by the request bodies; each failure names the field and says what is accepted. */
final class Check {
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,255}");
    static final int MAX_ENV_ENTRIES = 256;
    static final int MAX_ENV_VALUE = 32 * 1024;

    private Check() {}

    static PaddockException invalid(String field, String message) {
        return new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' " + message);
    }

    static long range(String field, Long value, long min, long max) {
        if (value < min || value > max) {
            throw invalid(field, "must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    static void noNul(String field, String value) {
        if (value.indexOf('\0') >= 0) throw invalid(field, "must not contain NUL characters");
    }

    static Map<String, String> env(String field, Map<String, String> env) {
        if (env == null) return Map.of();
        if (env.size() > MAX_ENV_ENTRIES) throw new PaddockException(ErrorCode.ENV_TOO_LARGE, "field '" + field + "' may hold at most " + MAX_ENV_ENTRIES + " variables");
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (!ENV_NAME.matcher(e.getKey()).matches()) {
                throw invalid(field, "has an invalid variable name '" + Text.clip(e.getKey(), 60)
                        + "'; names are letters, digits and _, not starting with a digit");
            }
            if (e.getValue() == null) throw invalid(field + "." + e.getKey(), "must be a string, not null");
            noNul(field + "." + e.getKey(), e.getValue());
            if (e.getValue().length() > MAX_ENV_VALUE) {
                throw invalid(field + "." + e.getKey(), "must be at most " + MAX_ENV_VALUE + " characters");
            }
        }
        return Map.copyOf(env);
    }
}
