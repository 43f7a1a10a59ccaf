package dev.paddock.core;

/**
 * The one exception type that crosses module boundaries. Its {@link ErrorCode} is a stable, machine-readable
 * reason from the catalogue (e.g. {@code fence_lost}, {@code path_outside_workspace}) and fixes the error type;
 * the message says what to fix. Messages must never contain secrets: they are sent to API clients as they are.
 */
public class PaddockException extends RuntimeException {
    private final ErrorCode code;

    public PaddockException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public PaddockException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public ErrorType type() { return code.type(); }

    /** The code as it goes on the wire. */
    public String code() { return code.wire(); }

    public ErrorCode errorCode() { return code; }

    public static PaddockException notFound(String what, String id) {
        return new PaddockException(ErrorCode.NOT_FOUND, what + " '" + id + "' does not exist");
    }

    public static PaddockException internal(String message, Throwable cause) {
        return new PaddockException(ErrorCode.INTERNAL, message, cause);
    }
}
