package dev.paddock.toolset;

import dev.paddock.core.Text;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** Text handling shared by the tools: decoding sandbox bytes, cutting to a byte limit, echoing user paths. */
final class ToolText {
    private static final Pattern ANSI = Pattern.compile("\u001b\\[[0-9;?]*[ -/]*[@-~]");

    private ToolText() {}

    /** Decodes bytes from a sandbox; invalid UTF-8 becomes U+FFFD rather than failing the call. */
    static String lenient(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Decodes strictly; null when the bytes are not valid UTF-8 (so an edit never corrupts a binary file). */
    static String strictOrNull(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static String stripAnsi(String s) {
        return ANSI.matcher(s).replaceAll("");
    }

    static String stripTrailingNewlines(String s) {
        int end = s.length();
        while (end > 0 && (s.charAt(end - 1) == '\n' || s.charAt(end - 1) == '\r')) end--;
        return s.substring(0, end);
    }

    static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) n++;
            else if (c < 0x800) n += 2;
            else if (Character.isHighSurrogate(c)) { n += 4; i++; }
            else n += 3;
        }
        return n;
    }

    /** The longest prefix of {@code s} whose UTF-8 encoding fits {@code maxBytes}, never splitting a character. */
    static String headWithin(String s, int maxBytes) {
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (n + len > maxBytes) return s.substring(0, i);
            n += len;
            i += Character.charCount(cp);
        }
        return s;
    }

    /** A user-supplied path for use in a result message: clipped, control characters replaced. */
    static String show(String path) {
        return Text.clip(path, 200);
    }
}
