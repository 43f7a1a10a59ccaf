package dev.paddock.images;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Fails with {@code image_too_large} once more than {@code max} bytes were read: guards against gzip bombs. */
final class CappedInputStream extends FilterInputStream {
    private final long max;
    private final String message;
    private long count;

    CappedInputStream(InputStream in, long max, String message) {
        super(in);
        this.max = max;
        this.message = message;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) count(1);
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) count(n);
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = super.skip(n);
        if (skipped > 0) count(skipped);
        return skipped;
    }

    private void count(long n) {
        count += n;
        if (count > max) throw ImageErrors.tooLarge(message);
    }
}
