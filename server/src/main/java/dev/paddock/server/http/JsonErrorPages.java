package dev.paddock.server.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty answers itself, before a request reaches the API (a malformed request line, an ambiguous URI,
 * headers that are too large), in the API's JSON error shape and without stack traces.
 */
public final class JsonErrorPages extends ErrorHandler {
    private final ApiJson json;

    public JsonErrorPages(ApiJson json) {
        this.json = json;
        setShowStacks(false);
        setShowCauses(false);
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body(code)), callback);
    }

    private byte[] body(int status) {
        var pe = ApiErrors.fromStatus(status);
        String message = status == 400 ? "the HTTP request is malformed (check the URL encoding and headers)" : pe.getMessage();
        if (status == 431) message = "the request headers are too large";
        return json.write(ErrorBody.of(pe.type(), pe.code(), message));
    }
}
