package dev.paddock.server.http;

import dev.paddock.core.ErrorType;

/** The one error shape of the API: {@code {"type":"error","error":{"type":…,"code":…,"message":…}}}. */
public record ErrorBody(String type, Detail error) {
    public record Detail(String type, String code, String message) {}

    public static ErrorBody of(ErrorType type, String code, String message) {
        return new ErrorBody("error", new Detail(type.wireName(), code, message));
    }
}
