package dev.paddock.server.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.util.Map;

/**
 * The one error shape of the API: {@code {"type":"error","error":{"type":…,"code":…,"message":…}}}; routes that
 * speak an SDK's error shape add {@code error.details} (e.g. {@code {"error_code":…}}).
 */
public record ErrorBody(String type, Detail error) {
    public record Detail(String type, String code, String message, @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Object> details) {}

    public static ErrorBody of(ErrorCode code, String message) {
        return of(code, message, null);
    }

    public static ErrorBody of(ErrorCode code, String message, Map<String, Object> details) {
        return new ErrorBody("error", new Detail(code.type().wireName(), code.wire(), message, details));
    }

    public static ErrorBody of(PaddockException e) {
        return of(e.errorCode(), e.getMessage());
    }
}
