package dev.paddock.core;

/**
 * The one exception type that crosses module boundaries. {@code code} is a stable, machine-readable
 * reason (e.g. {@code fence_lost}, {@code path_outside_workspace}); the message says what to fix.
 * Messages must never contain secrets: they are sent to API clients as they are.
 */
public class PaddockException extends RuntimeException {
    private final ErrorType type;
    private final String code;

    public PaddockException(ErrorType type, String code, String message) {
        super(message);
        this.type = type;
        this.code = code;
    }

    public PaddockException(ErrorType type, String code, String message, Throwable cause) {
        super(message, cause);
        this.type = type;
        this.code = code;
    }

    public ErrorType type() { return type; }

    public String code() { return code; }

    public static PaddockException invalid(String code, String message) {
        return new PaddockException(ErrorType.INVALID_REQUEST, code, message);
    }

    public static PaddockException notFound(String what, String id) {
        return new PaddockException(ErrorType.NOT_FOUND, "not_found", what + " '" + id + "' does not exist");
    }

    public static PaddockException conflict(String code, String message) {
        return new PaddockException(ErrorType.CONFLICT, code, message);
    }

    public static PaddockException internal(String message, Throwable cause) {
        return new PaddockException(ErrorType.API, "internal", message, cause);
    }
}
