package dev.paddock.server.http;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/** The one error shape of the API: {@code {"type":"error","error":{"type":…,"code":…,"message":…}}}. */
public record ErrorBody(String type, Detail error) {
    public record Detail(String type, String code, String message) {}

    public static ErrorBody of(ErrorCode code, String message) {
        return new ErrorBody("error", new Detail(code.type().wireName(), code.wire(), message));
    }

    public static ErrorBody of(PaddockException e) {
        return of(e.errorCode(), e.getMessage());
    }
}
