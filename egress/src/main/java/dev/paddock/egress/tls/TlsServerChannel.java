package dev.paddock.egress.tls;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;

/**
 * The server side of TLS over plain streams, with an {@link SSLEngine}, as a channel of the decrypted bytes.
 * Needed because the client connection may be a unix-domain channel, which an {@code SSLSocket} cannot wrap.
 * Reads and writes take separate locks, so one thread may read while another writes.
 */
public final class TlsServerChannel implements ByteChannel {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SSLEngine engine;
    private final InputStream rawIn;
    private final OutputStream rawOut;
    private final Object readLock = new Object();
    private final Object writeLock = new Object();
    private ByteBuffer netIn;   // read mode
    private ByteBuffer appIn;   // read mode
    private ByteBuffer netOut;
    private boolean inboundDone;

    /**
     * @param rawIn  the client's bytes (it may hold bytes already read past the CONNECT)
     * @param rawOut where encrypted bytes go
     */
    public TlsServerChannel(SSLEngine engine, InputStream rawIn, OutputStream rawOut) {
        this.engine = engine;
        this.rawIn = rawIn;
        this.rawOut = rawOut;
        var session = engine.getSession();
        netIn = ByteBuffer.allocate(session.getPacketBufferSize()).flip();
        appIn = ByteBuffer.allocate(session.getApplicationBufferSize()).flip();
        netOut = ByteBuffer.allocate(session.getPacketBufferSize());
    }

    public void handshake() throws IOException {
        engine.beginHandshake();
        HandshakeStatus hs = engine.getHandshakeStatus();
        while (hs != HandshakeStatus.FINISHED && hs != HandshakeStatus.NOT_HANDSHAKING) {
            switch (hs) {
                case NEED_WRAP -> {
                    synchronized (writeLock) { hs = wrap(EMPTY).getHandshakeStatus(); }
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    SSLEngineResult r = unwrapOnce();
                    if (r == null) throw new EOFException("the client closed the connection during the TLS handshake");
                    if (r.getStatus() == SSLEngineResult.Status.CLOSED) throw new SSLException("the client ended the TLS handshake");
                    hs = r.getHandshakeStatus();
                }
                case NEED_TASK -> {
                    runTasks();
                    hs = engine.getHandshakeStatus();
                }
                default -> throw new SSLException("unexpected handshake state " + hs);
            }
        }
    }

    /** Decrypted bytes from the client; -1 once the client closed its side of the TLS session. */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!dst.hasRemaining()) return 0;
        synchronized (readLock) {
            while (!appIn.hasRemaining()) {
                if (inboundDone) return -1;
                SSLEngineResult r = unwrapOnce();
                if (r == null || r.getStatus() == SSLEngineResult.Status.CLOSED) {
                    inboundDone = true;
                    continue;
                }
                afterOperation(r.getHandshakeStatus());
            }
            int n = Math.min(dst.remaining(), appIn.remaining());
            dst.put(appIn.slice(appIn.position(), n));
            appIn.position(appIn.position() + n);
            return n;
        }
    }

    /** Encrypts and sends all of {@code src}. */
    @Override
    public int write(ByteBuffer src) throws IOException {
        synchronized (writeLock) {
            int n = src.remaining();
            while (src.hasRemaining()) {
                SSLEngineResult r = wrap(src);
                if (r.getStatus() == SSLEngineResult.Status.CLOSED) throw new SSLException("the TLS session is closed");
            }
            return n;
        }
    }

    @Override
    public boolean isOpen() { return !engine.isOutboundDone(); }

    /** Sends close_notify; errors are ignored because the connection is going away anyway. */
    @Override
    public void close() {
        try {
            synchronized (writeLock) {
                engine.closeOutbound();
                while (!engine.isOutboundDone()) wrap(EMPTY);
            }
        } catch (IOException ignored) {
            // the peer is gone
        }
    }

    private void afterOperation(HandshakeStatus hs) throws IOException {
        // post-handshake messages (key updates) may need an answer or a delegated task
        if (hs == HandshakeStatus.NEED_TASK) runTasks();
        if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
            synchronized (writeLock) { wrap(EMPTY); }
        }
    }

    /** One unwrap step, reading from the network as needed; null when the network reached end of stream. */
    private SSLEngineResult unwrapOnce() throws IOException {
        while (true) {
            appIn.compact();
            SSLEngineResult r;
            try {
                r = engine.unwrap(netIn, appIn);
            } finally {
                appIn.flip();
            }
            switch (r.getStatus()) {
                case OK, CLOSED -> { return r; }
                case BUFFER_OVERFLOW -> {
                    ByteBuffer bigger = ByteBuffer.allocate(appIn.capacity() + engine.getSession().getApplicationBufferSize());
                    bigger.put(appIn).flip();
                    appIn = bigger;
                }
                case BUFFER_UNDERFLOW -> {
                    if (!readNetwork()) return null;
                }
            }
        }
    }

    private boolean readNetwork() throws IOException {
        netIn.compact();
        if (!netIn.hasRemaining()) {
            ByteBuffer bigger = ByteBuffer.allocate(netIn.capacity() + engine.getSession().getPacketBufferSize());
            netIn.flip();
            bigger.put(netIn);
            netIn = bigger;
        }
        int n = rawIn.read(netIn.array(), netIn.arrayOffset() + netIn.position(), netIn.remaining());
        if (n > 0) netIn.position(netIn.position() + n);
        netIn.flip();
        return n > 0;
    }

    private SSLEngineResult wrap(ByteBuffer src) throws IOException {
        while (true) {
            netOut.clear();
            SSLEngineResult r = engine.wrap(src, netOut);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                netOut = ByteBuffer.allocate(netOut.capacity() * 2);
                continue;
            }
            netOut.flip();
            if (netOut.hasRemaining()) {
                rawOut.write(netOut.array(), 0, netOut.limit());
                rawOut.flush();
            }
            if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) runTasks();
            return r;
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) task.run();
    }
}
