package dev.paddock.server.routes;

import dev.paddock.core.spi.ExecOutput;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Collects a command's stdout and stderr for the JSON answer, each up to a cap; the rest is counted as truncated. */
final class CappedOutput implements ExecOutput {
    private final Capped stdout;
    private final Capped stderr;

    CappedOutput(int capBytes) {
        this.stdout = new Capped(capBytes);
        this.stderr = new Capped(capBytes);
    }

    @Override
    public void stdout(byte[] data, int offset, int length) {
        stdout.add(data, offset, length);
    }

    @Override
    public void stderr(byte[] data, int offset, int length) {
        stderr.add(data, offset, length);
    }

    Capped out() { return stdout; }

    Capped err() { return stderr; }

    static final class Capped {
        private final int cap;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private boolean truncated;

        Capped(int cap) {
            this.cap = cap;
        }

        synchronized void add(byte[] data, int offset, int length) {
            int room = cap - bytes.size();
            if (length > room) truncated = true;
            if (room > 0) bytes.write(data, offset, Math.min(room, length));
        }

        /** The output as text; bytes that are not UTF-8 become U+FFFD. */
        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        synchronized boolean truncated() {
            return truncated;
        }
    }
}
