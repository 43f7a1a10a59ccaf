package dev.paddock.egress.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * How a message body is delimited (RFC 9112 §6), and a streaming copy that re-frames it on the way out. Bodies
 * are never held in memory as a whole: at most one buffer of bytes is in flight.
 */
sealed interface BodyFraming {
    record None() implements BodyFraming {}

    record Length(long bytes) implements BodyFraming {}

    record Chunked() implements BodyFraming {}

    record UntilClose() implements BodyFraming {}

    None NONE = new None();
    Chunked CHUNKED = new Chunked();
    UntilClose UNTIL_CLOSE = new UntilClose();

    /** Request framing; ambiguous framing (both headers, conflicting lengths, unknown codings) is refused to prevent smuggling. */
    static BodyFraming forRequest(HttpHeads.Request req) throws ProtocolException {
        var te = req.headers().all("transfer-encoding");
        var cl = req.headers().all("content-length");
        if (!te.isEmpty()) {
            if (!cl.isEmpty()) throw new ProtocolException(400, "ambiguous_framing", "a request must not carry both Transfer-Encoding and Content-Length");
            if (req.http10()) throw new ProtocolException(400, "ambiguous_framing", "Transfer-Encoding is not allowed in HTTP/1.0");
            if (te.size() != 1 || !te.getFirst().strip().equalsIgnoreCase("chunked")) {
                throw new ProtocolException(400, "unsupported_transfer_encoding", "only 'Transfer-Encoding: chunked' is supported");
            }
            return CHUNKED;
        }
        if (!cl.isEmpty()) {
            long n = contentLength(cl, 400);
            return n == 0 ? NONE : new Length(n);
        }
        return NONE;
    }

    /** Response framing; which responses have no body depends on the request method and the status. */
    static BodyFraming forResponse(String method, HttpHeads.Response resp) throws ProtocolException {
        int s = resp.status();
        if (method.equals("HEAD") || s < 200 || s == 204 || s == 304) return NONE;
        var te = resp.headers().all("transfer-encoding");
        if (!te.isEmpty()) {
            String last = String.join(",", te);
            last = last.substring(last.lastIndexOf(',') + 1).strip();
            return last.equalsIgnoreCase("chunked") ? CHUNKED : UNTIL_CLOSE;
        }
        var cl = resp.headers().all("content-length");
        if (!cl.isEmpty()) return new Length(contentLength(cl, 502));
        return UNTIL_CLOSE;
    }

    private static long contentLength(List<String> values, int status) throws ProtocolException {
        long found = -1;
        for (String v : values) {
            for (String part : v.split(",", -1)) {
                String d = part.strip();
                if (d.isEmpty() || d.length() > 18 || !d.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    throw new ProtocolException(status, "invalid_content_length", "Content-Length is not a number");
                }
                long n = Long.parseLong(d);
                if (found >= 0 && found != n) throw new ProtocolException(status, "invalid_content_length", "conflicting Content-Length values");
                found = n;
            }
        }
        return found;
    }

    /**
     * Copies a body from {@code in} to {@code out} (chunked stays chunked, re-encoded; trailers are dropped).
     * {@code malformedStatus} is the status to report when the body itself is malformed.
     */
    static void copy(BodyFraming framing, HeadInput in, OutputStream out, int maxLine, int malformedStatus) throws IOException {
        byte[] buf = new byte[32 * 1024];
        switch (framing) {
            case None none -> { }
            case Length length -> copyExactly(in, out, length.bytes(), buf, malformedStatus);
            case UntilClose u -> {
                int n;
                while ((n = in.read(buf, 0, buf.length)) > 0) out.write(buf, 0, n);
            }
            case Chunked c -> copyChunked(in, out, buf, maxLine, malformedStatus);
        }
        out.flush();
    }

    private static void copyExactly(InputStream in, OutputStream out, long remaining, byte[] buf, int status) throws IOException {
        while (remaining > 0) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, remaining));
            if (n <= 0) throw new ProtocolException(status, "truncated_body", "the body ended before Content-Length bytes");
            out.write(buf, 0, n);
            remaining -= n;
        }
    }

    private static void copyChunked(HeadInput in, OutputStream out, byte[] buf, int maxLine, int status) throws IOException {
        var tooLong = new ProtocolException(status, "malformed_chunk", "a chunk-size line is too long");
        while (true) {
            String line = in.readLine(maxLine, tooLong);
            if (line == null) throw new ProtocolException(status, "truncated_body", "the chunked body ended early");
            int semi = line.indexOf(';');
            String hex = (semi >= 0 ? line.substring(0, semi) : line).strip();
            if (hex.isEmpty() || hex.length() > 15 || !hex.chars().allMatch(ch -> Character.digit(ch, 16) >= 0)) {
                throw new ProtocolException(status, "malformed_chunk", "a chunk size is not a hexadecimal number");
            }
            long size = Long.parseLong(hex, 16);
            if (size == 0) {
                // trailers: read up to the empty line and drop them
                for (int i = 0; ; i++) {
                    String trailer = in.readLine(maxLine, tooLong);
                    if (trailer == null) throw new ProtocolException(status, "truncated_body", "the chunked body ended inside the trailers");
                    if (trailer.isEmpty()) break;
                    if (i > 100) throw new ProtocolException(status, "malformed_chunk", "too many trailer fields");
                }
                out.write(HeadInput.latin1("0\r\n\r\n"));
                return;
            }
            out.write(HeadInput.latin1(Long.toHexString(size) + "\r\n"));
            copyExactly(in, out, size, buf, status);
            String end = in.readLine(maxLine, tooLong);
            if (end == null || !end.isEmpty()) throw new ProtocolException(status, "malformed_chunk", "a chunk is not followed by CRLF");
            out.write(HeadInput.latin1("\r\n"));
        }
    }
}
