package dev.paddock.app.cli;

/** An expected failure a command reports as {@code error: <message>} without a stack trace. */
public class CliException extends RuntimeException {
    private final int exitCode;

    public CliException(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    public CliException(String message) {
        this(message, 1);
    }

    /** Wrong input from the user (exit code 2, like a bad option). */
    public static CliException usage(String message) {
        return new CliException(message, 2);
    }

    public int exitCode() { return exitCode; }
}
