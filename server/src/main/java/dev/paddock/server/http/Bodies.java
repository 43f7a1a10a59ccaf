package dev.paddock.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

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

    public <T> T json(Context ctx, Class<T> type) {
        BoundedInputStream in = bounded(ctx, maxJsonBytes, "JSON request body");
        byte[] raw;
        try (in) {
            raw = in.readAllBytes();
        } catch (IOException e) {
            if (in.exceeded()) throw in.tooLarge();
            throw new UncheckedIOException("reading the request body failed", e);
        }
        return json.read(raw, type);
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
}
