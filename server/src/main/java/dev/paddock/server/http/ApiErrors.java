package dev.paddock.server.http;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every failure into the API's error shape. Expected failures ({@link PaddockException}) keep their type,
 * code and message; anything else is a bug: it is logged with a short error id, and the client gets that id and
 * nothing of the internals.
 */
public final class ApiErrors {
    private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);
    /** Set on a context once an error body was written, so the status-code error pages leave it alone. */
    public static final String WRITTEN = "paddock.error.written";
    /**
     * Set on a context (as an {@link ErrorDetails}) by routes whose clients read {@code error.details}, e.g. the
     * Managed Agents SDKs' {@code error_code}.
     */
    public static final String DETAILS = "paddock.error.details";

    /** The {@code error.details} object of an error answer, or null for none. */
    @FunctionalInterface
    public interface ErrorDetails {
        Map<String, Object> of(PaddockException e);
    }

    private final ApiJson json;

    public ApiErrors(ApiJson json) {
        this.json = json;
    }

    /** Thrown by a handler that wrote its own error answer, to stop what would follow (e.g. a WebSocket upgrade). */
    public static final class Answered extends RuntimeException {
        public Answered() {
            super("answered", null, false, false);
        }
    }

    /**
     * Refuses a WebSocket upgrade with the API's error answer, written before the upgrade can happen, and stops the
     * handler chain ({@link Answered}), so the client gets a status and a body rather than a socket that closes.
     */
    public static void refuseUpgrade(Context ctx, ApiJson json, PaddockException e) throws IOException {
        byte[] body = json.write(ErrorBody.of(e));
        var res = ctx.res();
        res.setStatus(e.errorCode().httpStatus());
        res.setContentType("application/json");
        res.setHeader("Cache-Control", "no-store");
        res.setContentLength(body.length);
        res.getOutputStream().write(body);
        res.flushBuffer();
        throw new Answered();
    }

    public void handle(Exception e, Context ctx) {
        if (e instanceof Answered) return;
        if (ctx.res().isCommitted()) {
            // Part of a body is on the wire already; an error body now would corrupt it.
            PaddockException pe = classify(e, ctx);
            log.warn("{} {} failed after the response started: {}", ctx.method(), HttpMetrics.route(ctx), pe.getMessage());
            Streams.abort(ctx, e);
            return;
        }
        if (e instanceof HttpResponseException hre) {
            ctx.status(hre.getStatus());
            ctx.attribute(WRITTEN, null);
            statusPage(ctx);
            return;
        }
        PaddockException pe = classify(e, ctx);
        // a body refused while it may still be coming: say the connection ends (UnreadBodies reads what follows)
        if (pe.type() == ErrorType.REQUEST_TOO_LARGE) ctx.header("Connection", "close");
        write(ctx, pe);
    }

    /**
     * The last resort for a {@link Error} (a stack overflow, out of memory) thrown by a handler: Javalin hands those
     * past the exception mappers. The client still gets the error shape with an id, and nothing of the internals.
     */
    public void handleError(jakarta.servlet.http.HttpServletResponse res, Error e) {
        String errorId = "err_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        log.error("unexpected error {} ({})", errorId, e.getClass().getSimpleName(), e);
        if (res.isCommitted()) return;
        try {
            res.reset();
            res.setStatus(500);
            res.setContentType("application/json");
            res.setHeader("Cache-Control", "no-store");
            res.getOutputStream().write(json.write(ErrorBody.of(ErrorCode.INTERNAL,
                    "internal error " + errorId + "; this is a bug in Paddock, the server log has the details under this id")));
        } catch (IOException | RuntimeException ignored) {
            // the client is gone
        }
    }

    /** What a failure means to the client. */
    public PaddockException classify(Throwable e, Context ctx) {
        PaddockException tooLarge = BoundedInputStream.limitHit(e);
        if (tooLarge != null) return tooLarge;
        PaddockException badBody = BodyReadErrors.find(e);
        if (badBody != null) return badBody;
        if (e instanceof PaddockException pe) {
            if (pe.type() == ErrorType.API) return internal(pe, ctx);
            return pe;
        }
        if (e instanceof HttpResponseException hre) return fromStatus(hre.getStatus());
        return internal(e, ctx);
    }

    public void write(Context ctx, PaddockException e) {
        ctx.attribute(WRITTEN, Boolean.TRUE);
        ctx.status(e.errorCode().httpStatus());
        ctx.contentType("application/json");
        ErrorDetails details = ctx.attribute(DETAILS);
        ctx.result(json.write(ErrorBody.of(e.errorCode(), e.getMessage(), details == null ? null : details.of(e))));
    }

    /** Writes the error body for a status Javalin produced itself (no route, wrong method). */
    public void statusPage(Context ctx) {
        if (Boolean.TRUE.equals(ctx.attribute(WRITTEN))) return;
        PaddockException pe = fromStatus(ctx.statusCode());
        if (ctx.statusCode() == 404) {
            pe = new PaddockException(ErrorCode.ROUTE_NOT_FOUND,
                    "no such endpoint: " + ctx.method() + " " + Text.clip(ctx.path(), 200) + " (see docs/API.md)");
        } else if (ctx.statusCode() == 405) {
            pe = new PaddockException(ErrorCode.METHOD_NOT_ALLOWED,
                    ctx.method() + " is not allowed on " + Text.clip(ctx.path(), 200));
        }
        int status = ctx.statusCode();
        write(ctx, pe);
        ctx.status(status);
    }

    static PaddockException fromStatus(int status) {
        return switch (status) {
            case 400 -> new PaddockException(ErrorCode.BAD_REQUEST, "the request could not be understood");
            case 401 -> new PaddockException(ErrorCode.UNAUTHENTICATED, "send an API key");
            case 403 -> new PaddockException(ErrorCode.FORBIDDEN, "this API key may not do this");
            case 404 -> new PaddockException(ErrorCode.ROUTE_NOT_FOUND, "no such endpoint");
            case 405 -> new PaddockException(ErrorCode.METHOD_NOT_ALLOWED, "this method is not allowed here");
            case 408 -> new PaddockException(ErrorCode.REQUEST_TIMEOUT, "the request did not arrive in time");
            case 413 -> tooLarge("request body");
            case 414 -> new PaddockException(ErrorCode.URI_TOO_LONG, "the request URI is too long");
            case 415 -> new PaddockException(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "unsupported content type");
            case 431 -> new PaddockException(ErrorCode.HEADERS_TOO_LARGE, "the request headers are too large");
            case 503 -> new PaddockException(ErrorCode.UNAVAILABLE, "the server is not available; retry");
            default -> status >= 400 && status < 500
                    ? new PaddockException(ErrorCode.BAD_REQUEST, "the request was refused (HTTP " + status + ")")
                    : new PaddockException(ErrorCode.INTERNAL, "internal error");
        };
    }

    public static PaddockException tooLarge(String what) {
        return new PaddockException(ErrorCode.REQUEST_TOO_LARGE, what + " is over this server's limit");
    }

    private static PaddockException internal(Throwable e, Context ctx) {
        String errorId = "err_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        log.error("unexpected error {} on {} {}", errorId, ctx.method(), HttpMetrics.route(ctx), e);
        return new PaddockException(ErrorCode.INTERNAL,
                "internal error " + errorId + "; this is a bug in Paddock, the server log has the details under this id");
    }
}
