package dev.paddock.server.wire;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/** Checks an exec body field by field and turns it into the core {@link ExecRequest}. */
public final class ExecBodies {
    public static final long MAX_TIMEOUT_SECONDS = 24 * 3600;
    private static final int MAX_ARGS = 4096;
    private static final int MAX_CWD = 4096;

    private ExecBodies() {}

    public static ExecRequest toRequest(ExecBody b) {
        List<String> argv = argv(b);
        String cwd = b.cwd();
        if (cwd != null) {
            if (cwd.length() > MAX_CWD) throw Check.invalid("cwd", "must be at most " + MAX_CWD + " characters");
            Check.noNul("cwd", cwd);
        }
        Duration timeout = b.timeoutSeconds() == null ? null
                : Duration.ofSeconds(Check.range("timeout_seconds", b.timeoutSeconds(), 1, MAX_TIMEOUT_SECONDS));
        return new ExecRequest(argv, Check.env("env", b.env()), cwd, timeout, stdin(b));
    }

    private static List<String> argv(ExecBody b) {
        if (b.argv() != null && b.command() != null) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "give either 'argv' or 'command', not both");
        }
        if (b.command() != null) {
            if (b.command().isBlank()) throw Check.invalid("command", "must not be empty");
            Check.noNul("command", b.command());
            return List.of("/bin/sh", "-c", b.command());
        }
        if (b.argv() == null) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "'argv' (a list of strings) or 'command' (a shell line) is required");
        }
        List<String> argv = b.argv();
        if (argv.isEmpty()) throw Check.invalid("argv", "must name a program: it is empty");
        if (argv.size() > MAX_ARGS) throw new PaddockException(ErrorCode.ARGV_TOO_LONG, "field 'argv' may hold at most " + MAX_ARGS + " arguments");
        for (int i = 0; i < argv.size(); i++) {
            if (argv.get(i) == null) throw Check.invalid("argv[" + i + "]", "must be a string, not null");
            Check.noNul("argv[" + i + "]", argv.get(i));
        }
        if (argv.getFirst().isEmpty()) throw Check.invalid("argv[0]", "must name a program");
        return argv;
    }

    private static byte[] stdin(ExecBody b) {
        if (b.stdin() != null && b.stdinBase64() != null) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "give either 'stdin' or 'stdin_base64', not both");
        }
        if (b.stdin() != null) return b.stdin().getBytes(StandardCharsets.UTF_8);
        if (b.stdinBase64() != null) {
            try {
                return Base64.getDecoder().decode(b.stdinBase64());
            } catch (IllegalArgumentException e) {
                throw Check.invalid("stdin_base64", "must be valid base64");
            }
        }
        return null;
    }
}
