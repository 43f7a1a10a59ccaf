package dev.paddock.workspace;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Copies a stream into an open descriptor. */
final class FdWriter {
    private FdWriter() {}

    /** Copies everything from {@code in}; returns the byte count. */
    static long copy(InputStream in, Fd fd) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long total = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(chunk.length);
            for (int n; (n = in.read(chunk)) >= 0; ) {
                MemorySegment.copy(chunk, 0, buffer, ValueLayout.JAVA_BYTE, 0, n);
                for (int written = 0; written < n; ) {
                    written += Posix.write(fd.fd(), buffer.asSlice(written), n - written);
                }
                total += n;
            }
        }
        return total;
    }
}
