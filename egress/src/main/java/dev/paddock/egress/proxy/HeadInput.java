package dev.paddock.egress.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A buffered input that reads HTTP head lines under a length limit and hands the rest of the bytes to body
 * readers. Lines end in CRLF (a bare LF is accepted, a bare CR is not).
 */
final class HeadInput extends InputStream {
    private final InputStream in;
    private final byte[] buf = new byte[16 * 1024];
    private int pos;
    private int lim;

    HeadInput(InputStream in) { this.in = in; }

    /** The next line without its terminator, or null at end of stream before any byte of the line. */
    String readLine(int maxBytes, ProtocolException tooLong) throws IOException {
        StringBuilder line = new StringBuilder(64);
        while (true) {
            if (pos == lim && !fill()) {
                if (line.isEmpty()) return null;
                throw new ProtocolException(400, "truncated_request", "the connection ended inside a header line");
            }
            byte b = buf[pos++];
            if (b == '\n') return line.toString();
            if (b == '\r') {
                if (pos == lim && !fill()) throw new ProtocolException(400, "truncated_request", "the connection ended inside a header line");
                if (buf[pos] != '\n') throw new ProtocolException(400, "bare_cr", "a header line contains a bare CR");
                pos++;
                return line.toString();
            }
            if (line.length() >= maxBytes) throw tooLong;
            line.append((char) (b & 0xff));
        }
    }

    private boolean fill() throws IOException {
        int n = in.read(buf, 0, buf.length);
        if (n <= 0) return false;
        pos = 0;
        lim = n;
        return true;
    }

    int buffered() { return lim - pos; }

    /** Removes and returns the bytes already read from the source but not yet consumed. */
    byte[] drainBuffered() {
        byte[] out = new byte[lim - pos];
        System.arraycopy(buf, pos, out, 0, out.length);
        pos = lim;
        return out;
    }

    @Override
    public int read() throws IOException {
        if (pos == lim && !fill()) return -1;
        return buf[pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) return 0;
        if (pos < lim) {
            int n = Math.min(len, lim - pos);
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            return n;
        }
        return in.read(b, off, len);
    }

    @Override
    public void close() throws IOException { in.close(); }

    static byte[] latin1(String s) { return s.getBytes(StandardCharsets.ISO_8859_1); }
}
