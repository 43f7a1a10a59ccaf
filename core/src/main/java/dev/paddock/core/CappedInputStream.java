package dev.paddock.core;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Counts the bytes read through it and fails, as {@link Overflow} says, once more than {@code max} were read: a
 * request body past its limit, a gzip bomb. No mark/reset, which would count bytes twice.
 */
public class CappedInputStream extends FilterInputStream {
    private final long max;
    private final Overflow overflow;
    private long count;

    public CappedInputStream(InputStream in, long max, Overflow overflow) {
        super(in);
        this.max = max;
        this.overflow = overflow;
    }

    /** True once a read went past the cap. */
    public final boolean exceeded() {
        return count > max;
    }

    @Override
    public int read() throws IOException {
        int b;
        try {
            b = super.read();
        } catch (IOException | RuntimeException e) {
            throw readFailed(e);
        }
        if (b >= 0) count(1);
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n;
        try {
            n = super.read(b, off, len);
        } catch (IOException | RuntimeException e) {
            throw readFailed(e);
        }
        if (n > 0) count(n);
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped;
        try {
            skipped = super.skip(n);
        } catch (IOException | RuntimeException e) {
            throw readFailed(e);
        }
        if (skipped > 0) count(skipped);
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    /** What a failed read of the stream underneath throws; by default the failure itself. */
    protected IOException readFailed(Exception e) {
        if (e instanceof RuntimeException r) throw r;
        return (IOException) e;
    }

    private void count(long n) throws IOException {
        count += n;
        if (count > max) {
            overflow.exceeded();
            throw new IOException("read past the cap of " + max + " bytes");
        }
    }
}
