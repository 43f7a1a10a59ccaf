package dev.paddock.core;

/** Small string helpers for messages that echo user input back safely. */
public final class Text {
    private Text() {}

    /** At most {@code max} characters of {@code s}, control characters replaced, for use inside error messages. */
    public static String clip(String s, int max) {
        if (s == null) return "null";
        String cleaned = s.codePoints()
                .map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        return cleaned.length() <= max ? cleaned : cleaned.substring(0, max) + "…";
    }
}
