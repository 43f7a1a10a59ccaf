package dev.paddock.workspace;

import java.io.InputStream;

/** Reads an open regular file. Owns the descriptor. */
final class FdInputStream extends InputStream {
    private static final int CHUNK = 64 * 1024;

    private final Fd fd;
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
        int n = Posix.read(fd.fd(), b, off, Math.min(len, CHUNK));
        return n == 0 ? -1 : n;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            fd.close();
        }
    }
}
