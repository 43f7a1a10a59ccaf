package dev.paddock.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Collects a command's output in at most {@code limit} bytes, keeping either the first or the last bytes, and counts
 * what it dropped, so a command that prints without end cannot exhaust the server's memory. Thread-safe: drivers
 * call from their own threads.
 */
public final class BoundedBuffer {
    private final int limit;
    private final boolean keepTail;
    private byte[] data;
    private int size;
    private long total;

    /** Keeps the first {@code limit} bytes. */
    public BoundedBuffer(int limit) {
        this(limit, false);
    }

    public BoundedBuffer(int limit, boolean keepTail) {
        this.limit = limit;
        this.keepTail = keepTail;
        this.data = new byte[Math.min(limit, 8192) * (keepTail ? 2 : 1)];
    }

    public synchronized void append(byte[] b, int off, int len) {
        if (len <= 0) return;
        total += len;
        if (!keepTail) {
            int take = Math.min(len, limit - size);
            if (take <= 0) return;
            ensure(size + take);
            System.arraycopy(b, off, data, size, take);
            size += take;
            return;
        }
        if (len >= limit) {
            // the new chunk alone fills the window
            ensure(limit);
            System.arraycopy(b, off + len - limit, data, 0, limit);
            size = limit;
            return;
        }
        if (size + len > 2 * limit) compact(limit - len);
        ensure(size + len);
        System.arraycopy(b, off, data, size, len);
        size += len;
    }

    public synchronized byte[] bytes() {
        if (keepTail && size > limit) compact(limit);
        return Arrays.copyOf(data, size);
    }

    /** The kept bytes as text; bytes that are not UTF-8 become U+FFFD. */
    public String text() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    /** The kept text, followed by a line that says how many bytes were dropped when there were any. */
    public String markedText() {
        long dropped = dropped();
        return dropped > 0 ? text() + "\n[paddock: output truncated, " + dropped + " more bytes]\n" : text();
    }

    /** How many bytes were not kept. */
    public synchronized long dropped() {
        return total - Math.min(size, limit);
    }

    public boolean truncated() {
        return dropped() > 0;
    }

    /** Keeps only the last {@code keep} bytes. */
    private void compact(int keep) {
        if (size <= keep) return;
        System.arraycopy(data, size - keep, data, 0, keep);
        size = keep;
    }

    private void ensure(int capacity) {
        int max = keepTail ? 2 * limit : limit;
        if (capacity > data.length) data = Arrays.copyOf(data, Math.min(max, Math.max(capacity, data.length * 2)));
    }
}
