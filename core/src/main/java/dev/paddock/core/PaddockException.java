package dev.paddock.core;

/**
 * The one exception type that crosses module boundaries. Its {@link ErrorCode} is a stable, machine-readable
 * reason from the catalogue (e.g. {@code fence_lost}, {@code path_outside_workspace}) and fixes the error type;
 * the message says what to fix. Messages must never contain secrets: they are sent to API clients as they are.
 */
public class PaddockException extends RuntimeException {
    private final ErrorCode errorCode;
    /** The wire code, also as a field: tests and tools that read an exception's "code" reflectively see the string. */
    private final String code;

    public PaddockException(ErrorCode code, String message) {
        super(message);
        this.errorCode = code;
        this.code = code.wire();
    }

    public PaddockException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.errorCode = code;
        this.code = code.wire();
    }

    public ErrorType type() { return errorCode.type(); }

    /** The code as it goes on the wire. */
    public String code() { return code; }

    public ErrorCode errorCode() { return errorCode; }

    public static PaddockException notFound(String what, String id) {
        return new PaddockException(ErrorCode.NOT_FOUND, what + " '" + id + "' does not exist");
    }

    public static PaddockException internal(String message, Throwable cause) {
        return new PaddockException(ErrorCode.INTERNAL, message, cause);
    }
}
