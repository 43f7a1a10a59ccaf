package dev.paddock.app.cli;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a command may touch of the outside world: its streams, its environment and the home directory. Passed in
 * rather than read from {@code System} so tests can run the real CLI in-process with captured output.
 */
public final class CliContext {
    private final InputStream stdin;
    private final OutputStream stdout;
    private final OutputStream stderr;
    private final PrintWriter out;
    private final PrintWriter err;
    private final Map<String, String> env;
    private final Path home;

    public CliContext(InputStream stdin, OutputStream stdout, OutputStream stderr, Map<String, String> env, Path home) {
        this.stdin = stdin;
        this.stdout = stdout;
        this.stderr = stderr;
        this.out = new PrintWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8), true);
        this.err = new PrintWriter(new OutputStreamWriter(stderr, StandardCharsets.UTF_8), true);
        this.env = Map.copyOf(env);
        this.home = home;
    }

    public static CliContext system() {
        return new CliContext(System.in, System.out, System.err, System.getenv(), Path.of(System.getProperty("user.home")));
    }

    public InputStream stdin() { return stdin; }

    /** Raw standard output, for bytes that must pass unchanged (command output). Flush {@link #out()} first. */
    public OutputStream stdout() { return stdout; }

    public OutputStream stderr() { return stderr; }

    public PrintWriter out() { return out; }

    public PrintWriter err() { return err; }

    public String env(String name) {
        String v = env.get(name);
        return v == null || v.isBlank() ? null : v;
    }

    public Map<String, String> envMap() { return env; }

    public Path home() { return home; }

    /** The data directory: {@code PADDOCK_DATA_DIR}, else the server's default ({@code ~/.paddock} or /var/lib/paddock). */
    public Path defaultDataDir() {
        String dir = env("PADDOCK_DATA_DIR");
        return dir != null ? Path.of(dir) : DefaultDataDir.of(home);
    }
}
