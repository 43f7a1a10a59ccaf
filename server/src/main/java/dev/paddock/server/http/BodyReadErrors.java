package dev.paddock.server.http;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.io.EofException;

/**
 * Failures to read a request body are the client's: bad chunked encoding, a body shorter than its Content-Length
 * (the connection closed, or went quiet past the idle timeout). They answer 400 or 408, never a 500, wherever in
 * a cause chain a consumer of the body wrapped them.
 */
public final class BodyReadErrors {
    private BodyReadErrors() {}

    /** The I/O error a consumer sees when reading the body failed on the client's side. */
    public static final class BodyReadFailed extends IOException {
        private final transient PaddockException error;

        BodyReadFailed(PaddockException error, Throwable cause) {
            super(error.getMessage(), cause);
            this.error = error;
        }
    }

    /** Wraps a failed read of the request body. */
    static BodyReadFailed failed(Throwable cause) {
        return new BodyReadFailed(describe(cause), cause);
    }

    /** The client error hidden in {@code e}'s cause chain, or null when {@code e} is not a failed body read. */
    public static PaddockException find(Throwable e) {
        int depth = 0;
        for (Throwable t = e; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof BodyReadFailed f) return f.error;
            if (t instanceof TimeoutException || t instanceof EofException
                    || (t instanceof HttpException h && h.getCode() >= 400 && h.getCode() < 500)) {
                return describe(t);
            }
        }
        return null;
    }

    private static PaddockException describe(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException) {
                return new PaddockException(ErrorCode.REQUEST_TIMEOUT,
                        "the request body stopped arriving before its end; send the whole body without long pauses");
            }
            if (t.getCause() == t) break;
        }
        return new PaddockException(ErrorCode.MALFORMED_BODY,
                "the request body could not be read: it is shorter than its Content-Length or its chunked encoding is malformed");
    }
}
