package dev.paddock.egress;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * The server side of TLS over plain streams, with an {@link SSLEngine}. Needed because the client connection
 * may be a unix-domain channel, which an {@code SSLSocket} cannot wrap.
 */
final class TlsServerStream {
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

    TlsServerStream(SSLEngine engine, InputStream rawIn, OutputStream rawOut) {
        this.engine = engine;
        this.rawIn = rawIn;
        this.rawOut = rawOut;
        var session = engine.getSession();
        netIn = ByteBuffer.allocate(session.getPacketBufferSize()).flip();
        appIn = ByteBuffer.allocate(session.getApplicationBufferSize()).flip();
        netOut = ByteBuffer.allocate(session.getPacketBufferSize());
    }

    void handshake() throws IOException {
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

    InputStream input() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) return 0;
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
                    int n = Math.min(len, appIn.remaining());
                    appIn.get(b, off, n);
                    return n;
                }
            }
        };
    }

    OutputStream output() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException { write(new byte[] {(byte) b}, 0, 1); }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                synchronized (writeLock) {
                    ByteBuffer src = ByteBuffer.wrap(b, off, len);
                    while (src.hasRemaining()) {
                        SSLEngineResult r = wrap(src);
                        if (r.getStatus() == SSLEngineResult.Status.CLOSED) throw new SSLException("the TLS session is closed");
                    }
                }
            }
        };
    }

    /** Sends close_notify; errors are ignored because the connection is going away anyway. */
    void closeOutbound() {
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
