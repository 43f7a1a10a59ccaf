package dev.paddock.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;

/** Writes raw response bodies straight to the connection, so large files and archives are never held in memory. */
public final class Streams {
    private Streams() {}

    /** Starts a streamed response: status and type first, then the caller writes to the returned stream. */
    public static OutputStream open(Context ctx, int status, String contentType) {
        ctx.res().setStatus(status);
        ctx.res().setContentType(contentType);
        ctx.res().setHeader("X-Content-Type-Options", "nosniff");
        ctx.res().setHeader("Cache-Control", "no-store");
        try {
            return ctx.res().getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void copy(Context ctx, InputStream in, String contentType) throws IOException {
        try (in) {
            OutputStream out = open(ctx, 200, contentType);
            in.transferTo(out);
            out.flush();
        }
    }

    /**
     * Drops the connection of a response that was already partly sent, so the client sees a broken transfer
     * rather than a short body that looks complete.
     */
    public static void abort(Context ctx, Throwable cause) {
        try {
            ServletContextRequest.getServletContextRequest(ctx.req()).getServletChannel().abort(cause);
        } catch (RuntimeException ignored) {
            // the connection is gone already
        }
    }
}
