package dev.paddock.core.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One command to run inside a sandbox. {@code argv} is executed directly (no shell); use {@link #shell} for a
 * shell line. {@code cwd} is a path inside the sandbox (default {@code /workspace}); {@code stdin} is written
 * and then closed, or null for an empty stdin (interactive stdin goes through {@link ExecHandle#stdin()}).
 */
public record ExecRequest(List<String> argv, Map<String, String> env, String cwd, Duration timeout, byte[] stdin) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);
    public static final String WORKSPACE = "/workspace";

    public ExecRequest {
        if (argv == null || argv.isEmpty()) throw new IllegalArgumentException("argv must name a program");
        argv = List.copyOf(argv);
        env = env == null ? Map.of() : Map.copyOf(env);
        cwd = cwd == null || cwd.isEmpty() ? WORKSPACE : cwd;
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
    }

    public static ExecRequest of(String... argv) {
        return new ExecRequest(List.of(argv), Map.of(), null, null, null);
    }

    public static ExecRequest shell(String line) {
        return new ExecRequest(List.of("/bin/sh", "-c", line), Map.of(), null, null, null);
    }

    public ExecRequest withTimeout(Duration t) {
        return new ExecRequest(argv, env, cwd, t, stdin);
    }

    public ExecRequest withStdin(byte[] in) {
        return new ExecRequest(argv, env, cwd, timeout, in);
    }
}
