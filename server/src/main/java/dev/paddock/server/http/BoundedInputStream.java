package dev.paddock.server.http;

import dev.paddock.core.PaddockException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A request body that may not grow past a limit. Reading past it fails with {@link LimitExceeded}, which the error
 * mapper turns into a 413 wherever in the cause chain it ends up, so a consumer that wraps I/O errors cannot hide it.
 */
public final class BoundedInputStream extends FilterInputStream {
    private final long limit;
    private final String what;
    private long count;
    private boolean exceeded;

    public BoundedInputStream(InputStream in, long limit, String what) {
        super(in);
        this.limit = limit;
        this.what = what;
    }

    /** True once a read went past the limit. */
    public boolean exceeded() {
        return exceeded;
    }

    public PaddockException tooLarge() {
        return ApiErrors.tooLarge(what + " (limit " + limit + " bytes)");
    }

    @Override
    public int read() throws IOException {
        int b;
        try {
            b = super.read();
        } catch (IOException | RuntimeException e) {
            throw BodyReadErrors.failed(e);
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
            throw BodyReadErrors.failed(e);
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
            throw BodyReadErrors.failed(e);
        }
        if (skipped > 0) count(skipped);
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    private void count(long n) throws LimitExceeded {
        count += n;
        if (count > limit) {
            exceeded = true;
            throw new LimitExceeded(tooLarge());
        }
    }

    /** The 413 hidden somewhere in {@code e}'s cause chain, or null. */
    public static PaddockException limitHit(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof LimitExceeded le) return le.error;
            if (t.getCause() == t) break;
        }
        return null;
    }

    /** The I/O error a consumer sees when the body goes past the limit. */
    public static final class LimitExceeded extends IOException {
        private final transient PaddockException error;

        LimitExceeded(PaddockException error) {
            super(error.getMessage());
            this.error = error;
        }
    }
}
