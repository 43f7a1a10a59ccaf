package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/** Argument checks that fail with a 400 naming the missing field, instead of a NullPointerException. */
final class Require {
    private Require() {}

    static <T> T present(T value, String field) {
        if (value == null) throw new PaddockException(ErrorCode.MISSING_FIELD, field + " is required");
        return value;
    }

    static String text(String value, String field, int maxLength) {
        if (value == null || value.isBlank()) throw new PaddockException(ErrorCode.MISSING_FIELD, field + " is required");
        if (value.length() > maxLength) {
            throw new PaddockException(ErrorCode.FIELD_TOO_LONG, field + " must be at most " + maxLength + " characters");
        }
        return value;
    }
}
