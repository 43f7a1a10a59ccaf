package dev.paddock.driver.docker;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A minimal HTTP/1.1 client for the Docker Engine API on its unix socket: one connection per request
 * ({@code Connection: close}), a JSON or streamed request body, a response read whole (fixed length, chunked or to
 * the end). Every request has a deadline after which its connection is closed, so a hung engine cannot hang a caller.
 */
final class EngineHttp {
    /** Closes connections whose deadline passed; blocking reads on a closed channel end at once. */
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "docker-engine-deadlines");
        t.setDaemon(true);
        return t;
    });
    private static final int MAX_BODY = 64 << 20;

    /** Writes a streamed request body; the client frames it as chunks. */
    @FunctionalInterface
    interface BodyWriter {
        void write(OutputStream out) throws IOException;
    }

    record Response(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    private final Path socket;

    EngineHttp(Path socket) {
        this.socket = socket;
    }

    Path socket() {
        return socket;
    }

    Response send(String method, String path, byte[] json, Duration timeout) throws IOException {
        return exchange(method, path, json == null ? null : "application/json", json, null, timeout);
    }

    Response stream(String method, String path, String contentType, BodyWriter body, Duration timeout) throws IOException {
        return exchange(method, path, contentType, null, body, timeout);
    }

    private Response exchange(String method, String path, String contentType, byte[] fixed, BodyWriter streamed, Duration timeout) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        AtomicBoolean expired = new AtomicBoolean();
        ScheduledFuture<?> deadline = DEADLINES.schedule(() -> {
            expired.set(true);
            closeQuietly(channel);
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try (channel) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            OutputStream out = Channels.newOutputStream(channel);
            StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n");
            if (contentType != null) head.append("Content-Type: ").append(contentType).append("\r\n");
            if (streamed != null) head.append("Transfer-Encoding: chunked\r\n");
            else head.append("Content-Length: ").append(fixed == null ? 0 : fixed.length).append("\r\n");
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
            if (fixed != null) out.write(fixed);
            if (streamed != null) {
                try (ChunkedOutputStream chunks = new ChunkedOutputStream(out)) {
                    streamed.write(chunks);
                }
            }
            out.flush();
            return read(new BufferedInputStream(Channels.newInputStream(channel), 16 << 10));
        } catch (IOException e) {
            if (expired.get()) throw new IOException("the Docker engine did not answer " + method + " " + path + " within " + timeout.toMillis() + " ms", e);
            throw e;
        } finally {
            deadline.cancel(false);
        }
    }

    private static Response read(InputStream in) throws IOException {
        String status = line(in);
        String[] parts = status.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) throw new IOException("not an HTTP answer from the Docker engine: " + status);
        int code = Integer.parseInt(parts[1]);
        Map<String, String> headers = new TreeMap<>();
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            if (colon > 0) headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) body = chunked(in);
        else if (headers.containsKey("content-length")) body = exactly(in, Integer.parseInt(headers.get("content-length")));
        else if (code == 204 || code == 304) body = new byte[0];
        else body = toEnd(in);
        return new Response(code, headers, body);
    }

    private static byte[] chunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (;;) {
            String sizeLine = line(in);
            int semi = sizeLine.indexOf(';');
            int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
            if (size == 0) {
                while (!line(in).isEmpty()) { } // trailers
                return body.toByteArray();
            }
            if (body.size() + size > MAX_BODY) throw new IOException("the Docker engine's answer exceeds " + MAX_BODY + " bytes");
            body.write(exactly(in, size));
            line(in);
        }
    }

    private static byte[] exactly(InputStream in, int n) throws IOException {
        if (n > MAX_BODY) throw new IOException("the Docker engine's answer exceeds " + MAX_BODY + " bytes");
        byte[] b = in.readNBytes(n);
        if (b.length < n) throw new EOFException("the Docker engine closed the connection mid-answer");
        return b;
    }

    private static byte[] toEnd(InputStream in) throws IOException {
        byte[] b = in.readNBytes(MAX_BODY + 1);
        if (b.length > MAX_BODY) throw new IOException("the Docker engine's answer exceeds " + MAX_BODY + " bytes");
        return b;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) throw new EOFException("the Docker engine closed the connection mid-answer");
            if (s.length() > 16 << 10) throw new IOException("an over-long line in the Docker engine's answer");
            if (c != '\r') s.append((char) c);
        }
        return s.toString();
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is all that was asked
        }
    }

    /** HTTP/1.1 chunked framing of a streamed body; closing writes the last chunk, not the connection's end. */
    private static final class ChunkedOutputStream extends OutputStream {
        private final OutputStream out;
        private final byte[] buf = new byte[64 << 10];
        private int len;

        ChunkedOutputStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            if (len == buf.length) flushChunk();
            buf[len++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int n) throws IOException {
            while (n > 0) {
                if (len == buf.length) flushChunk();
                int k = Math.min(n, buf.length - len);
                System.arraycopy(b, off, buf, len, k);
                len += k;
                off += k;
                n -= k;
            }
        }

        private void flushChunk() throws IOException {
            if (len == 0) return;
            out.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(buf, 0, len);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            len = 0;
        }

        @Override
        public void close() throws IOException {
            flushChunk();
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
    }
}
