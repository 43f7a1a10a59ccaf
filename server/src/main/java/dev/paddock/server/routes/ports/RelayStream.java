package dev.paddock.server.routes.ports;

import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What a forwarded port answers, as an input stream: the relay's output chunks in a bounded queue (a full queue
 * makes the relay wait, so a slow client slows the server inside down instead of filling the host's memory), then
 * end-of-stream once the relay ended. Reads wait at most {@code timeout} for the next chunk.
 */
final class RelayStream extends InputStream implements ExecOutput {
    private static final byte[] END = new byte[0];
    private static final int MAX_DIAGNOSTIC = 1024;

    private final LinkedBlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>(64);
    private final StringBuilder diagnostic = new StringBuilder();
    private volatile boolean closed;
    private volatile ExecResult result;
    private byte[] current = new byte[0];
    private int pos;
    private boolean ended;
    private Duration timeout;

    RelayStream(Duration timeout) {
        this.timeout = timeout;
    }

    /** Ends the stream once {@code h} ends; its result then says why (exit 3: nothing listened). */
    void endWith(ExecHandle h) {
        Thread.ofVirtual().name("paddock-port-relay-end").start(() -> {
            try {
                result = h.await();
            } catch (InterruptedException | RuntimeException e) {
                // the sandbox went away: the stream just ends
            } finally {
                put(END);
            }
        });
    }

    void timeout(Duration t) {
        this.timeout = t;
    }

    /** The relay's result once the stream ended; null if unknown. */
    ExecResult result() {
        return result;
    }

    /** What the relay itself said on stderr (init's "nothing listens ..."), clipped. */
    synchronized String diagnostic() {
        return diagnostic.toString();
    }

    @Override
    public void stdout(byte[] data, int offset, int length) {
        if (length > 0) put(Arrays.copyOfRange(data, offset, offset + length));
    }

    @Override
    public synchronized void stderr(byte[] data, int offset, int length) {
        int n = Math.min(length, MAX_DIAGNOSTIC - diagnostic.length());
        if (n > 0) diagnostic.append(new String(data, offset, n, StandardCharsets.UTF_8));
    }

    private void put(byte[] chunk) {
        try {
            while (!closed && !chunks.offer(chunk, 100, TimeUnit.MILLISECONDS)) {
                // a full queue: wait for the reader, unless it went away
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) return 0;
        while (pos >= current.length) {
            if (ended) return -1;
            byte[] next;
            try {
                next = chunks.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the sandbox");
            }
            if (next == null) throw new SocketTimeoutException("the server inside the sandbox sent nothing for " + timeout.toSeconds() + "s");
            if (next == END) { ended = true; return -1; }
            current = next;
            pos = 0;
        }
        int n = Math.min(len, current.length - pos);
        System.arraycopy(current, pos, b, off, n);
        pos += n;
        return n;
    }

    @Override
    public int available() {
        return current.length - pos;
    }

    @Override
    public void close() {
        closed = true;
        chunks.clear();
    }
}
