package dev.paddock.server.http;

import dev.paddock.core.CappedInputStream;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.InputStream;

/**
 * A request body that may not grow past a limit. Reading past it fails with {@link LimitExceeded}, which the error
 * mapper turns into a 413 wherever in the cause chain it ends up, so a consumer that wraps I/O errors cannot hide it.
 */
public final class BoundedInputStream extends CappedInputStream {
    private final long limit;
    private final String what;

    public BoundedInputStream(InputStream in, long limit, String what) {
        super(in, limit, () -> {
            throw new LimitExceeded(tooLarge(what, limit));
        });
        this.limit = limit;
        this.what = what;
    }

    public PaddockException tooLarge() {
        return tooLarge(what, limit);
    }

    private static PaddockException tooLarge(String what, long limit) {
        return ApiErrors.tooLarge(what + " (limit " + limit + " bytes)");
    }

    @Override
    protected IOException readFailed(Exception e) {
        return BodyReadErrors.failed(e);
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
