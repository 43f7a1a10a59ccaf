package dev.paddock.server.routes.ports;

import java.io.IOException;
import java.io.InputStream;

/** Decodes an HTTP/1.1 chunked body (sizes, data, trailers) from a server inside a sandbox; every line is bounded. */
final class ChunkedInputStream extends InputStream {
    private static final int MAX_LINE = 4096;
    private final InputStream in;
    private long left;
    private boolean done;

    ChunkedInputStream(InputStream in) {
        this.in = in;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (done) return -1;
        if (left == 0) {
            String size = line();
            int semi = size.indexOf(';');
            try {
                left = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).strip(), 16);
            } catch (NumberFormatException e) {
                throw ResponseHead.invalid("the chunked body of the server inside the sandbox has an invalid chunk size");
            }
            if (left < 0) throw ResponseHead.invalid("the chunked body of the server inside the sandbox has an invalid chunk size");
            if (left == 0) {
                // trailers, up to the empty line; they are not passed on
                for (int i = 0; !line().isEmpty(); i++) if (i > ResponseHead.MAX_HEADERS) throw ResponseHead.invalid("too many trailers");
                done = true;
                return -1;
            }
        }
        int n = in.read(b, off, (int) Math.min(len, left));
        if (n < 0) throw ResponseHead.invalid("the server inside the sandbox ended its chunked body early");
        left -= n;
        if (left == 0 && !line().isEmpty()) throw ResponseHead.invalid("a chunk of the server inside the sandbox does not end with CRLF");
        return n;
    }

    private String line() throws IOException {
        StringBuilder s = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) throw ResponseHead.invalid("the server inside the sandbox ended its chunked body early");
            if (s.length() >= MAX_LINE) throw ResponseHead.invalid("a chunk line of the server inside the sandbox is too long");
            if (c != '\r') s.append((char) c);
        }
        return s.toString();
    }
}
