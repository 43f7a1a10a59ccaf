package dev.paddock.server.routes.ports;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The status line and headers a server inside a sandbox answered, read as hostile input: at most
 * {@link #MAX_BYTES} and {@link #MAX_HEADERS}, names that are HTTP tokens, values without control characters,
 * no folded lines. Anything else is {@code upstream_response_invalid}.
 */
record ResponseHead(int status, String reason, List<String[]> headers) {
    static final int MAX_BYTES = 64 * 1024;
    static final int MAX_HEADERS = 100;
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] ([1-5][0-9][0-9])(?: ([\\x20-\\x7e\\t]*))?");
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}");

    /** Reads one head; null when the stream ended before its first byte. */
    static ResponseHead read(InputStream in) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream(1024);
        int state = 0; // how much of CR LF CR LF has been seen
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                if (raw.size() == 0) return null;
                throw invalid("the server inside the sandbox closed the connection in the middle of its response head");
            }
            raw.write(b);
            if (raw.size() > MAX_BYTES) throw invalid("the response head of the server inside the sandbox is over " + MAX_BYTES + " bytes");
            state = switch (state) {
                case 0, 2 -> b == '\r' ? state + 1 : 0;
                case 1, 3 -> b == '\n' ? state + 1 : (b == '\r' ? 1 : 0);
                default -> 0;
            };
        }
        return parse(raw.toString(StandardCharsets.ISO_8859_1));
    }

    static ResponseHead parse(String text) {
        String[] lines = text.substring(0, text.length() - 4).split("\r\n", -1);
        var m = STATUS_LINE.matcher(lines[0]);
        if (!m.matches()) throw invalid("the server inside the sandbox did not answer with an HTTP/1.x status line");
        List<String[]> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int colon = line.indexOf(':');
            if (colon <= 0) throw invalid("a response header line of the server inside the sandbox has no name");
            String name = line.substring(0, colon);
            if (!TOKEN.matcher(name).matches()) throw invalid("a response header name of the server inside the sandbox is not an HTTP token");
            String value = line.substring(colon + 1).strip();
            for (int k = 0; k < value.length(); k++) {
                char c = value.charAt(k);
                if ((c < 0x20 && c != '\t') || c == 0x7f) throw invalid("response header '" + name + "' of the server inside the sandbox holds control characters");
            }
            headers.add(new String[] {name, value});
            if (headers.size() > MAX_HEADERS) throw invalid("the server inside the sandbox sent more than " + MAX_HEADERS + " response headers");
        }
        return new ResponseHead(Integer.parseInt(m.group(1)), m.group(2) == null ? "" : m.group(2), List.copyOf(headers));
    }

    /** The values of a header, case-insensitively. */
    List<String> values(String name) {
        List<String> out = new ArrayList<>();
        for (String[] h : headers) if (h[0].equalsIgnoreCase(name)) out.add(h[1]);
        return out;
    }

    boolean chunked() {
        return values("Transfer-Encoding").stream().anyMatch(v -> v.toLowerCase(Locale.ROOT).contains("chunked"));
    }

    /** The body's length when the head states one exactly once; -1 otherwise (read to the end). */
    long contentLength() {
        List<String> v = values("Content-Length");
        if (v.isEmpty()) return -1;
        if (v.stream().distinct().count() != 1) throw invalid("the server inside the sandbox sent conflicting Content-Length headers");
        try {
            long n = Long.parseLong(v.getFirst());
            if (n < 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw invalid("the server inside the sandbox sent an invalid Content-Length");
        }
    }

    static PaddockException invalid(String message) {
        return new PaddockException(ErrorCode.UPSTREAM_RESPONSE_INVALID, message);
    }
}
