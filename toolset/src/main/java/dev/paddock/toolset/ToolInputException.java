package dev.paddock.toolset;

/** A tool call's input is unusable; the message tells the model what to send instead. Never leaves this module. */
final class ToolInputException extends RuntimeException {
    ToolInputException(String message) {
        super(message, null, false, false);
    }
}
