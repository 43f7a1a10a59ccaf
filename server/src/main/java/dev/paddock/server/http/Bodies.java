package dev.paddock.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;

/** Reads request bodies within the server's limits: JSON into memory (small), uploads as a bounded stream. */
public final class Bodies {
    private final ApiJson json;
    private final long maxJsonBytes;
    private final long maxUploadBytes;

    public Bodies(ApiJson json, long maxJsonBytes, long maxUploadBytes) {
        this.json = json;
        this.maxJsonBytes = maxJsonBytes;
        this.maxUploadBytes = maxUploadBytes;
    }

    private static final String RAW_JSON = "paddock.raw-json";

    public <T> T json(Context ctx, Class<T> type) {
        return json.read(rawJson(ctx), type);
    }

    /**
     * The JSON body's bytes, read once (up to {@code max_json_body}) and kept on the request, so a step before the
     * route (placing a create on a node) and the route itself both see them.
     */
    public byte[] rawJson(Context ctx) {
        byte[] kept = ctx.attribute(RAW_JSON);
        if (kept != null) return kept;
        BoundedInputStream in = bounded(ctx, maxJsonBytes, "JSON request body");
        byte[] raw;
        try (in) {
            raw = in.readAllBytes();
        } catch (IOException e) {
            if (in.exceeded()) throw in.tooLarge();
            throw new UncheckedIOException("reading the request body failed", e);
        }
        ctx.attribute(RAW_JSON, raw);
        return raw;
    }

    /** {@link #json}, or null for an empty body (endpoints whose body is optional). */
    public <T> T jsonOrNull(Context ctx, Class<T> type) {
        byte[] raw = rawJson(ctx);
        return raw.length == 0 ? null : json.read(raw, type);
    }

    /** The largest upload (file content, archive, multipart file) a request may carry: {@code max_upload_size}. */
    public long maxUploadBytes() {
        return maxUploadBytes;
    }

    /** The raw body as a stream that fails with 413 past the upload limit; never buffered whole. */
    public BoundedInputStream upload(Context ctx, String what) {
        return bounded(ctx, maxUploadBytes, what);
    }

    private static BoundedInputStream bounded(Context ctx, long limit, String what) {
        long declared = ctx.req().getContentLengthLong();
        BoundedInputStream in = new BoundedInputStream(body(ctx), limit, what);
        if (declared > limit) throw in.tooLarge();
        return in;
    }

    private static InputStream body(Context ctx) {
        try {
            return ctx.req().getInputStream();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the request body", e);
        }
    }

    private static final long DRAIN_LIMIT = 1L << 20;
    /** How long the rest of a refused body is read before the connection closes anyway. */
    private static final Duration LINGER = Duration.ofSeconds(5);

    /**
     * Reads and drops what is left of a request body whose answer was sent, for up to {@link #LINGER}, so the
     * connection ends with the client's data read and the answer it has not read yet is not reset away.
     */
    static void discardRest(Context ctx) {
        long deadline = System.nanoTime() + LINGER.toNanos();
        try {
            InputStream in = ctx.req().getInputStream();
            byte[] buffer = new byte[64 * 1024];
            while (System.nanoTime() < deadline && in.read(buffer) >= 0) {
                // dropped
            }
        } catch (IOException | RuntimeException e) {
            // the client went away, or the body was taken as a reader or by the multipart parser: nothing to keep
        }
    }

    /**
     * Reads what a handler left unread of a small request body (an endpoint that ignores its body, or one that
     * failed early). Jetty closes a connection whose request content was not consumed, without saying so in the
     * response, so a client reusing that kept-alive connection for its next request would get no answer at all.
     * Bodies above 1 MiB are not drained: there closing the connection is the cheaper answer.
     */
    public static void drainUnread(Context ctx) {
        long length = ctx.req().getContentLengthLong();
        if (length <= 0 || length > DRAIN_LIMIT) return;
        try {
            InputStream in = ctx.req().getInputStream();
            byte[] buffer = new byte[8192];
            long left = DRAIN_LIMIT;
            for (int n; left > 0 && (n = in.read(buffer)) >= 0; ) left -= n;
        } catch (IOException | IllegalStateException e) {
            // the body was taken as a reader, or the client went away: nothing left to keep the connection for
        }
    }
}
