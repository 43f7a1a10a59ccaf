package dev.paddock.driver.subprocess;

/**
 * The last {@code capacity} bytes of a background process's combined output, addressed by absolute offset
 * since the process started, so a reader can poll from where it stopped and notice what it missed.
 */
final class OutputRing {
    private final byte[] ring;
    private long written;

    OutputRing(int capacity) {
        this.ring = new byte[capacity];
    }

    synchronized void append(byte[] data, int offset, int length) {
        for (int i = 0; i < length; i++) {
            ring[(int) (written++ % ring.length)] = data[offset + i];
        }
    }

    /** Up to {@code maxBytes} from {@code from}; bytes that were overwritten already are skipped. */
    synchronized byte[] read(long from, int maxBytes) {
        long oldest = Math.max(0, written - ring.length);
        long start = Math.max(from, oldest);
        if (start >= written || maxBytes <= 0) return new byte[0];
        int length = (int) Math.min(maxBytes, written - start);
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) out[i] = ring[(int) ((start + i) % ring.length)];
        return out;
    }
}
