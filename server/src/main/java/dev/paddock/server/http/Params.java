package dev.paddock.server.http;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.store.PageRequest;
import io.javalin.http.Context;

/** Query and path parameters, checked one by one; a bad one is a 400 that names it. */
public final class Params {
    private Params() {}

    /** {@code limit}, {@code after_id}, {@code before_id}; cursor ids must carry {@code idPrefix}. */
    public static PageRequest page(Context ctx, String idPrefix) {
        int limit = PageRequest.DEFAULT_LIMIT;
        String raw = ctx.queryParam("limit");
        if (raw != null) {
            limit = (int) integer("limit", raw, 1, PageRequest.MAX_LIMIT, ErrorCode.INVALID_LIMIT);
        }
        String after = optionalId(ctx, "after_id", idPrefix);
        String before = optionalId(ctx, "before_id", idPrefix);
        return new PageRequest(limit, after, before);
    }

    public static String pathId(Context ctx, String param, String prefix, String what) {
        return Ids.require(prefix, ctx.pathParam(param), what);
    }

    public static boolean bool(Context ctx, String name, boolean fallback) {
        String raw = ctx.queryParam(name);
        if (raw == null || raw.isEmpty()) return fallback;
        return switch (raw) {
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw new PaddockException(ErrorCode.INVALID_PARAMETER,
                    "query parameter '" + name + "' must be true or false, got '" + Text.clip(raw, 40) + "'");
        };
    }

    public static long longParam(Context ctx, String name, long fallback, long min, long max) {
        String raw = ctx.queryParam(name);
        return raw == null ? fallback : integer(name, raw, min, max, ErrorCode.INVALID_PARAMETER);
    }

    public static long pathLong(Context ctx, String name, long min, long max) {
        return integer(name, ctx.pathParam(name), min, max, ErrorCode.INVALID_PARAMETER);
    }

    /** A required query parameter that is not blank. */
    public static String required(Context ctx, String name) {
        String raw = ctx.queryParam(name);
        if (raw == null || raw.isBlank()) {
            throw new PaddockException(ErrorCode.MISSING_PARAMETER, "query parameter '" + name + "' is required");
        }
        return raw;
    }

    public static String optional(Context ctx, String name, String fallback) {
        String raw = ctx.queryParam(name);
        return raw == null || raw.isBlank() ? fallback : raw;
    }

    private static String optionalId(Context ctx, String name, String prefix) {
        String raw = ctx.queryParam(name);
        if (raw == null || raw.isEmpty()) return null;
        return Ids.require(prefix, raw, name);
    }

    private static long integer(String name, String raw, long min, long max, ErrorCode code) {
        long v;
        try {
            v = Long.parseLong(raw.strip());
        } catch (NumberFormatException e) {
            throw new PaddockException(code, name + " must be an integer between " + min + " and " + max
                    + ", got '" + Text.clip(raw, 40) + "'");
        }
        if (v < min || v > max) {
            throw new PaddockException(code, name + " must be between " + min + " and " + max + ", got " + v);
        }
        return v;
    }
}
