package dev.paddock.app;

import dev.paddock.app.cli.CliContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Runs the real picocli command line in-process with captured streams and a chosen environment. */
final class Cli {
    private final Map<String, String> env;
    private final Path home;

    Cli(Map<String, String> env, Path home) {
        this.env = new HashMap<>(env);
        this.home = home;
    }

    record Result(int code, String out, String err, byte[] rawOut) {
        @Override public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    Result run(String... args) {
        return runWithStdin(new byte[0], args);
    }

    Result runWithStdin(byte[] stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliContext ctx = new CliContext(new ByteArrayInputStream(stdin), out, err, env, home);
        int code = Main.run(ctx, args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), out.toByteArray());
    }
}
