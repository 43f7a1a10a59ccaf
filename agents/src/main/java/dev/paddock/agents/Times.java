package dev.paddock.agents;

import java.time.Instant;
import java.time.format.DateTimeFormatter;

/** RFC 3339 timestamps as the API writes them. */
public final class Times {
    private Times() {}

    public static String iso(Instant t) {
        return t == null ? null : DateTimeFormatter.ISO_INSTANT.format(t);
    }
}
