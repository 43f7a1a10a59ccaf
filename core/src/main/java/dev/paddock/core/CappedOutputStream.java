package dev.paddock.core;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Passes writes through until {@code max} bytes in all; a write that would go past them fails, as {@link Overflow}
 * says, before any of its bytes are written: an archive that may not grow larger than allowed.
 */
public final class CappedOutputStream extends FilterOutputStream {
    private final Overflow overflow;
    private long left;

    public CappedOutputStream(OutputStream out, long max, Overflow overflow) {
        super(out);
        this.left = max;
        this.overflow = overflow;
    }

    @Override
    public void write(int b) throws IOException {
        take(1);
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        take(len);
        out.write(b, off, len);
    }

    private void take(int n) throws IOException {
        if (n > left) {
            overflow.exceeded();
            throw new IOException("write past the cap");
        }
        left -= n;
    }
}
