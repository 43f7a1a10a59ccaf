package dev.paddock.init;

import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/** One connection to a sandbox's init agent. Reads come from one thread; writes are serialized. */
final class InitConnection implements AutoCloseable {
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("paddock-init-watchdog").factory());

    private final SocketChannel channel;
    private final ByteBuffer header = ByteBuffer.allocate(Frame.HEADER);
    private final ReentrantLock writeLock = new ReentrantLock();

    private InitConnection(SocketChannel channel) {
        this.channel = channel;
    }

    static InitConnection open(Path socket) {
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(socket));
            return new InitConnection(ch);
        } catch (IOException e) {
            if (ch != null) try { ch.close(); } catch (IOException ignored) { }
            throw InitProtocolException.unreachable(e);
        }
    }

    void send(byte type, byte[] payload) throws IOException {
        writeLock.lock();
        try {
            write(type, payload);
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Sends unless another writer holds the connection for longer than {@code wait} (a stdin write stuck on a
     * command that does not read); returns false then, and the caller may close the connection instead.
     */
    boolean trySend(byte type, byte[] payload, Duration wait) throws IOException {
        try {
            if (!writeLock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        try {
            write(type, payload);
            return true;
        } finally {
            writeLock.unlock();
        }
    }

    private void write(byte type, byte[] payload) throws IOException {
        ByteBuffer b = new Frame(type, payload).encode();
        while (b.hasRemaining()) channel.write(b);
    }

    /** The next frame, or null at end of stream. Lengths above the protocol bound are refused. */
    Frame read() throws IOException {
        header.clear();
        if (!fill(header, true)) return null;
        header.flip();
        byte type = header.get();
        int length = header.getInt();
        if (length < 0 || length > Frame.MAX_PAYLOAD) throw InitProtocolException.malformed("frame length");
        ByteBuffer payload = ByteBuffer.allocate(length);
        fill(payload, false);
        return new Frame(type, payload.array());
    }

    private boolean fill(ByteBuffer b, boolean eofAllowedAtStart) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                if (eofAllowedAtStart && b.position() == 0) return false;
                throw new EOFException("connection closed in the middle of a frame");
            }
        }
        return true;
    }

    /** Runs {@code r} on the shared watchdog thread when {@code after} elapses, unless the returned handle is cancelled first. */
    ScheduledFuture<?> schedule(Runnable r, Duration after) {
        return WATCHDOG.schedule(r, Math.max(0, after.toMillis()), TimeUnit.MILLISECONDS);
    }

    boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() {
        try { channel.close(); } catch (IOException ignored) { }
    }
}
