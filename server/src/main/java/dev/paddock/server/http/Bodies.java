package dev.paddock.server.http;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

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

    /**
     * For an endpoint that takes no body: none, or {@code {}} (what SDKs send). Anything else is refused (invalid
     * JSON, not an object, any field), so a body sent by mistake is not silently ignored.
     */
    public void none(Context ctx) {
        Map<?, ?> body = json(ctx, Map.class);
        if (!body.isEmpty()) {
            throw new PaddockException(ErrorCode.UNKNOWN_FIELD, "unknown field '" + Text.clip(String.valueOf(body.keySet().iterator().next()), 60)
                    + "'; this endpoint takes no body (send none, or {})");
        }
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
}
