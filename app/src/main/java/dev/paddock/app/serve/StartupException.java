package dev.paddock.app.serve;

import java.util.List;

/** The server cannot start; {@code problems} say exactly what is missing, one per line. */
public final class StartupException extends RuntimeException {
    private final List<String> problems;

    public StartupException(String message) {
        this(message, List.of());
    }

    public StartupException(String message, List<String> problems) {
        super(message);
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() { return problems; }
}
