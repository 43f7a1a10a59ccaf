package dev.paddock.app.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The user's own terminal for {@code paddock sandbox shell}: raw mode on and the previous settings back through
 * {@code stty} on {@code /dev/tty} (what the line discipline offers; no native code), and the window's size.
 */
final class LocalTerminal implements AutoCloseable {
    private final String saved;

    private LocalTerminal(String saved) {
        this.saved = saved;
    }

    /** Raw mode (no echo, no line editing, ^C passed through) until {@link #close}; empty without a terminal. */
    static Optional<LocalTerminal> raw() {
        if (System.console() == null || !System.console().isTerminal()) return Optional.empty();
        try {
            String saved = stty("-g").strip();
            if (saved.isEmpty()) return Optional.empty();
            stty("raw", "-echo");
            return Optional.of(new LocalTerminal(saved));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Rows and columns of the terminal, or 24x80 where it cannot be read. */
    static int[] size() {
        try {
            String[] rc = stty("size").strip().split("\\s+");
            int rows = Integer.parseInt(rc[0]), cols = Integer.parseInt(rc[1]);
            if (rows > 0 && cols > 0) return new int[] {Math.min(rows, 1000), Math.min(cols, 1000)};
        } catch (IOException | RuntimeException e) {
            // not a terminal
        }
        return new int[] {24, 80};
    }

    private static String stty(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("stty"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectInput(new File("/dev/tty")).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("stty " + String.join(" ", args) + " failed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        return out;
    }

    @Override
    public void close() {
        try {
            stty(saved);
        } catch (IOException ignored) {
            // the terminal went away
        }
    }
}
