package dev.paddock.server.wire;

import dev.paddock.core.Text;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/** Memory sizes as the API accepts them: bytes, or a whole number with {@code k}, {@code m} or {@code g} (powers of 1024). */
public final class MemorySize {
    public static final long MIN = 16L << 20;
    public static final long MAX = 1L << 40;
    private static final Pattern SIZE = Pattern.compile("([0-9]{1,13})\\s*(?:([kmg])(?:ib|b)?|b)?");

    private MemorySize() {}

    public static long parse(String field, JsonNode node) {
        long bytes;
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            bytes = node.asLong();
        } else if (node.isString()) {
            bytes = parseText(field, node.asString());
        } else {
            throw Check.invalid(field, "must be a number of bytes or a size such as \"512m\" or \"1g\"");
        }
        if (bytes < MIN || bytes > MAX) {
            throw Check.invalid(field, "must be between 16m and 1024g, got " + bytes + " bytes");
        }
        return bytes;
    }

    static long parseText(String field, String text) {
        Matcher m = SIZE.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw Check.invalid(field, "must be bytes or a size such as \"512m\" or \"1g\", got '" + Text.clip(text, 40) + "'");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "" : m.group(2);
        int shift = switch (unit) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        if (n > (Long.MAX_VALUE >> shift)) throw Check.invalid(field, "is too large");
        return n << shift;
    }
}
