package dev.paddock.core.spi;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A command to run on a new terminal inside a sandbox: {@code argv} (default a login-like {@code bash}, or
 * {@code sh} where bash is missing), environment, working directory and the terminal's first size. It runs until
 * it exits or is killed: no timeout.
 */
public record TerminalRequest(List<String> argv, Map<String, String> env, String cwd, int rows, int cols) {
    public static final int MAX_SIZE = 1000;
    public static final List<String> DEFAULT_SHELL = List.of("/bin/sh", "-c", "if command -v bash >/dev/null; then exec bash -l; else exec sh -l; fi");

    public TerminalRequest {
        argv = argv == null || argv.isEmpty() ? DEFAULT_SHELL : List.copyOf(argv);
        env = env == null ? Map.of() : Map.copyOf(env);
        cwd = cwd == null || cwd.isEmpty() ? ExecRequest.WORKSPACE : cwd;
        requireSize(rows, cols);
    }

    public static void requireSize(int rows, int cols) {
        if (rows < 1 || rows > MAX_SIZE || cols < 1 || cols > MAX_SIZE) {
            throw new PaddockException(ErrorCode.INVALID_TERMINAL_SIZE, "rows and cols must be 1 to " + MAX_SIZE + ", got " + rows + "x" + cols);
        }
    }

    /** The command as an exec request (no timeout: a terminal lives until its command ends), with TERM set unless given. */
    public ExecRequest command() {
        Map<String, String> withTerm = new LinkedHashMap<>(env);
        withTerm.putIfAbsent("TERM", "xterm-256color");
        return new ExecRequest(argv, withTerm, cwd, Duration.ZERO, null);
    }
}
