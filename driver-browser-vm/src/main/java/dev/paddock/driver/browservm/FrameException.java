package dev.paddock.driver.browservm;

/** A frame from a tab that breaks the relay protocol; answered with an error frame, never thrown further. */
final class FrameException extends Exception {
    private final String code;
    private final String requestId;

    FrameException(String code, String message, String requestId) {
        super(message, null, false, false);
        this.code = code;
        this.requestId = requestId;
    }

    String code() { return code; }

    String requestId() { return requestId; }
}
