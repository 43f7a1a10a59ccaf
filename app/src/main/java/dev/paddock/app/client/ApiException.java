package dev.paddock.app.client;

/** An error answer from the Paddock API, in its {@code {"type":"error","error":{…}}} shape. */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String type;
    private final String code;

    public ApiException(int status, String type, String code, String message) {
        super(message);
        this.status = status;
        this.type = type;
        this.code = code;
    }

    public int status() { return status; }

    public String type() { return type; }

    /** The stable snake_case reason, e.g. {@code invalid_id}; falls back to the error type. */
    public String code() { return code != null ? code : type; }
}
