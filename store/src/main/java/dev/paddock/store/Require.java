package dev.paddock.store;

import dev.paddock.core.PaddockException;

/** Argument checks that fail with a 400 naming the missing field, instead of a NullPointerException. */
final class Require {
    private Require() {}

    static <T> T present(T value, String field) {
        if (value == null) throw PaddockException.invalid("missing_field", field + " is required");
        return value;
    }

    static String text(String value, String field, int maxLength) {
        if (value == null || value.isBlank()) throw PaddockException.invalid("missing_field", field + " is required");
        if (value.length() > maxLength) {
            throw PaddockException.invalid("field_too_long", field + " must be at most " + maxLength + " characters");
        }
        return value;
    }
}
