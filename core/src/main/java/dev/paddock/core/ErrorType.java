package dev.paddock.core;

/** Error categories, named as in the Claude Managed Agents API error shape, each with its HTTP status. */
public enum ErrorType {
    INVALID_REQUEST("invalid_request_error", 400),
    AUTHENTICATION("authentication_error", 401),
    PERMISSION("permission_error", 403),
    NOT_FOUND("not_found_error", 404),
    CONFLICT("conflict_error", 409),
    PRECONDITION_FAILED("precondition_failed_error", 412),
    /** The client stopped sending a request body it had announced. */
    REQUEST_TIMEOUT("timeout_error", 408),
    REQUEST_TOO_LARGE("request_too_large", 413),
    RATE_LIMIT("rate_limit_error", 429),
    API("api_error", 500),
    NOT_IMPLEMENTED("not_implemented_error", 501),
    UNAVAILABLE("unavailable_error", 503),
    INSUFFICIENT_STORAGE("storage_error", 507),
    TIMEOUT("timeout_error", 504);

    private final String wireName;
    private final int httpStatus;

    ErrorType(String wireName, int httpStatus) {
        this.wireName = wireName;
        this.httpStatus = httpStatus;
    }

    public String wireName() { return wireName; }

    public int httpStatus() { return httpStatus; }
}
