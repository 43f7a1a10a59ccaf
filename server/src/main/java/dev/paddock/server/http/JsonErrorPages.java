package dev.paddock.server.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty answers itself, before or around the API's handlers (a malformed request line or chunked body, a URI
 * that does not decode, headers that are too large, a body that stops arriving), in the API's JSON error shape,
 * for every method, with a code and without stack traces. Set on the server and on the servlet context.
 */
public final class JsonErrorPages extends ErrorHandler {
    private final ApiJson json;

    public JsonErrorPages(ApiJson json) {
        this.json = json;
        setShowStacks(false);
        setShowCauses(false);
        setShowOrigin(false);
    }

    @Override
    public boolean errorPageForMethod(String method) {
        return true; // the default leaves the body of e.g. a DELETE empty
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, ByteBuffer.wrap(body(code)), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        return ByteBuffer.wrap(body(status));
    }

    byte[] body(int status) {
        var pe = ApiErrors.fromStatus(status);
        String message = switch (status) {
            case 400 -> "the HTTP request is malformed (check the URL encoding, the headers and the chunked encoding of the body)";
            case 408 -> "the request did not arrive in time";
            case 414 -> "the request URI is too long";
            case 431 -> "the request headers are too large";
            default -> pe.getMessage();
        };
        return json.write(ErrorBody.of(pe.errorCode(), message));
    }
}
