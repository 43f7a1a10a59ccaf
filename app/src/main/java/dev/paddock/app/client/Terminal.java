package dev.paddock.app.client;

/**
 * Text from a server (or a sandbox, through it) made safe to print on a terminal: no control character reaches it
 * raw, so an answer cannot move the cursor, rewrite the screen, set the title or hide text (ESC sequences, C1
 * controls such as CSI, DEL, bidirectional overrides). Each is shown escaped instead, as {@code \x1b} or
 * {@code \u202e}; line breaks and tabs too, since one value is one line or one cell. A backslash stays as it is.
 */
public final class Terminal {
    private Terminal() {}

    public static String escape(String s) {
        if (s == null) return null;
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (unsafe(c)) {
                if (sb == null) sb = new StringBuilder(s.length() + 16).append(s, 0, i);
                sb.append(c <= 0xff ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }

    /**
     * Raw JSON text already checked to be valid JSON, for {@code --json}: JSON itself escapes C0 controls inside
     * strings, so only DEL, C1 controls and bidirectional overrides can still be there (only inside strings, where
     * {@code \\uXXXX} means the same); they are written escaped.
     */
    public static String escapeJson(String json) {
        StringBuilder sb = null;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c >= 0x7f && unsafe(c)) {
                if (sb == null) sb = new StringBuilder(json.length() + 16).append(json, 0, i);
                sb.append(String.format("\\u%04x", (int) c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? json : sb.toString();
    }

    static boolean unsafe(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
                || c == 0x200e || c == 0x200f || c == 0x061c;
    }
}
