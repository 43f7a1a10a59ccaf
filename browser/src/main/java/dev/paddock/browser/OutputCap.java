package dev.paddock.browser;

import dev.paddock.core.spi.ExecOutput;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Keeps the first {@code limit} bytes of a stream and counts the rest; the text ends with a marker when cut. */
final class OutputCap {
    static final String MARKER = "\n[paddock: output truncated, %d more bytes]\n";
    private final int limit;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private long dropped;

    OutputCap(int limit) {
        this.limit = limit;
    }

    synchronized void add(byte[] data, int offset, int length) {
        int room = Math.max(0, limit - kept.size());
        int take = Math.min(room, length);
        kept.write(data, offset, take);
        dropped += length - take;
    }

    /** An exec output that keeps stdout here and drops stderr. */
    ExecOutput stdout() {
        return new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { add(d, o, l); }
            @Override public void stderr(byte[] d, int o, int l) {}
        };
    }

    synchronized boolean truncated() {
        return dropped > 0;
    }

    synchronized String text() {
        String s = kept.toString(StandardCharsets.UTF_8);
        return dropped > 0 ? s + MARKER.formatted(dropped) : s;
    }
}
