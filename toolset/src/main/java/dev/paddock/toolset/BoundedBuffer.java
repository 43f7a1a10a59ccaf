package dev.paddock.toolset;

import java.util.Arrays;

/**
 * Collects a command's output in at most {@code limit} bytes, keeping either the first or the last bytes, so a
 * command that prints without end cannot exhaust the server's memory. Thread-safe: drivers call from their own threads.
 */
public final class BoundedBuffer {
    private final int limit;
    private final boolean keepTail;
    private byte[] data;
    private int size;
    private boolean truncated;

    public BoundedBuffer(int limit, boolean keepTail) {
        this.limit = limit;
        this.keepTail = keepTail;
        this.data = new byte[Math.min(limit, 8192) * (keepTail ? 2 : 1)];
    }

    public synchronized void append(byte[] b, int off, int len) {
        if (len <= 0) return;
        if (!keepTail) {
            int take = Math.min(len, limit - size);
            if (take < len) truncated = true;
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
            truncated |= size > 0 || len > limit;
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

    public synchronized boolean truncated() {
        return truncated || (keepTail && size > limit);
    }

    /** Keeps only the last {@code keep} bytes. */
    private void compact(int keep) {
        if (size <= keep) return;
        System.arraycopy(data, size - keep, data, 0, keep);
        size = keep;
        truncated = true;
    }

    private void ensure(int capacity) {
        int max = keepTail ? 2 * limit : limit;
        if (capacity > data.length) data = Arrays.copyOf(data, Math.min(max, Math.max(capacity, data.length * 2)));
    }
}
