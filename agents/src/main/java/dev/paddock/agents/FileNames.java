package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * An uploaded file's name and MIME type as the Files API keeps them: only the name's final path component is kept
 * (as the SDKs document), an empty one becomes {@code unnamed}; names with control characters or of more than 255
 * bytes are refused. A MIME type that is not {@code type/subtype} becomes {@code application/octet-stream}.
 */
final class FileNames {
    static final int MAX_BYTES = 255;
    private static final Pattern MIME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,62}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}");

    private FileNames() {}

    static String filename(String submitted) {
        String name = submitted == null ? "" : submitted;
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        name = name.substring(slash + 1).strip();
        if (name.isEmpty()) return "unnamed";
        if (name.equals(".") || name.equals("..")) {
            throw new PaddockException(ErrorCode.FILE_NAME_INVALID, "a file cannot be named '" + name + "'");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new PaddockException(ErrorCode.FILE_NAME_INVALID, "the file name '" + Text.clip(name.replaceAll("\\p{Cntrl}", "?"), 60)
                        + "' has control characters; rename the file");
            }
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw new PaddockException(ErrorCode.FILE_NAME_INVALID, "the file name must be at most " + MAX_BYTES + " bytes of UTF-8");
        }
        return name;
    }

    static String mimeType(String submitted) {
        if (submitted == null) return "application/octet-stream";
        String type = submitted.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        return MIME.matcher(type).matches() ? type : "application/octet-stream";
    }
}
