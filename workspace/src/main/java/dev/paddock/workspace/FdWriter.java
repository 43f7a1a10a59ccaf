package dev.paddock.workspace;

import java.io.IOException;
import java.io.InputStream;

/** Copies a stream into an open descriptor. */
final class FdWriter {
    private FdWriter() {}

    /** Copies everything from {@code in}; returns the byte count. */
    static long copy(InputStream in, Fd fd) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long total = 0;
        for (int n; (n = in.read(chunk)) >= 0; ) {
            for (int written = 0; written < n; ) {
                written += Posix.write(fd.fd(), chunk, written, n - written);
            }
            total += n;
        }
        return total;
    }
}
