package dev.paddock.workspace;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Reads an open regular file. Owns the descriptor. */
final class FdInputStream extends InputStream {
    private static final int CHUNK = 64 * 1024;

    private final Fd fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(CHUNK);
    private boolean closed;

    FdInputStream(Fd fd) {
        this.fd = fd;
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) {
        if (closed) throw new IllegalStateException("stream closed");
        if (len == 0) return 0;
        int n = Posix.read(fd.fd(), buffer, Math.min(len, CHUNK));
        if (n == 0) return -1;
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, b, off, n);
        return n;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            fd.close();
            arena.close();
        }
    }
}
