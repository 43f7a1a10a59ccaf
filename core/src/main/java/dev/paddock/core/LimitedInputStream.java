package dev.paddock.core;

import java.io.IOException;
import java.io.InputStream;

/**
 * The next {@code length} bytes of a stream, then its end: one body on a kept-alive connection, one region of an
 * archive. The stream underneath is neither read past them nor closed, so what follows stays readable. Made by
 * {@link #upTo}, where the stream may end sooner, or {@link #exactly}, where an earlier end is a failure.
 */
public final class LimitedInputStream extends InputStream {
    private final InputStream in;
    private final String endedEarly;
    private long left;

    private LimitedInputStream(InputStream in, long length, String endedEarly) {
        this.in = in;
        this.left = length;
        this.endedEarly = endedEarly;
    }

    /** At most {@code length} bytes of {@code in}: fewer when it ends first. */
    public static LimitedInputStream upTo(InputStream in, long length) {
        return new LimitedInputStream(in, length, null);
    }

    /** Exactly {@code length} bytes of {@code in}: a read that finds it ended first fails with {@code endedEarly}. */
    public static LimitedInputStream exactly(InputStream in, long length, String endedEarly) {
        return new LimitedInputStream(in, length, endedEarly);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (left <= 0) return -1;
        int n = in.read(b, off, (int) Math.min(len, left));
        if (n < 0 && endedEarly != null) throw new IOException(endedEarly);
        if (n > 0) left -= n;
        return n;
    }

    @Override
    public int available() throws IOException {
        return (int) Math.min(in.available(), Math.max(left, 0));
    }
}
