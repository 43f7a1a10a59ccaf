package dev.paddock.app.client;

import dev.paddock.core.LimitedInputStream;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One HTTP/1.1 exchange per connection over a plain socket, TLS only for {@code https} URLs. The CLI's client: a
 * command is one or two requests, and the JDK's {@code java.net.http} client costs a CLI call more to start (it sets
 * up TLS and its executor even for {@code http://127.0.0.1}) than the request itself. Bodies go with a
 * Content-Length, or chunked when streamed; answers are read by Content-Length, chunked, or to the end.
 */
final class Http1 {
    /** The most header bytes an answer may carry before the client gives up on it. */
    private static final int MAX_HEADER_BYTES = 64 * 1024;

    private Http1() {}

    /** A request body: none, bytes of known length, or a stream sent chunked. */
    sealed interface Body {
        Body NONE = new Bytes(null);

        record Bytes(byte[] bytes) implements Body {}

        record Streamed(Supplier<InputStream> content) implements Body {}
    }

    /**
     * How long the client waits: for the connection (and a TLS handshake), and for the answer's head; the same
     * answer timeout then bounds a whole non-streaming body, unless the caller streams it ({@link Response#clock}).
     */
    record Timeouts(Duration connect, Duration answer) {}

    /** No answer (or no end of one) came within a timeout: the server accepted the request and stalled. */
    static final class AnswerTimeoutException extends IOException {
        AnswerTimeoutException(String message) {
            super(message);
        }
    }

    /** The answer; its body streams from the connection, which closing the answer closes. */
    record Response(int status, Map<String, String> headers, InputStream body, Clock clock) implements Closeable {
        @Override
        public void close() throws IOException {
            body.close();
        }
    }

    static Response send(URI uri, String method, Map<String, String> headers, Body body, Timeouts timeouts) throws IOException {
        boolean tls = "https".equalsIgnoreCase(uri.getScheme());
        if (!tls && !"http".equalsIgnoreCase(uri.getScheme())) throw new IOException("unsupported URL scheme: " + uri.getScheme());
        String host = uri.getHost();
        int port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), (int) timeouts.connect().toMillis());
            socket.setSoTimeout((int) timeouts.connect().toMillis()); // the TLS handshake is part of connecting
            if (tls) socket = startTls(socket, host, port);
            Clock clock = new Clock(socket);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
            IOException sending = null;
            try {
                writeHead(out, uri, method, headers, body, host, port, tls);
                writeBody(out, body);
                out.flush();
            } catch (IOException e) {
                sending = e; // the server may have refused the body (413) and closed: its answer says why
            }
            clock.waitUpTo(timeouts.answer(), "of its answer");
            InputStream in = new BufferedInputStream(clock.input(), 16 * 1024);
            int status;
            Map<String, String> answer = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            try {
                do { // 1xx answers (100 Continue) come before the real one
                    answer.clear();
                    status = readHead(in, answer);
                } while (status >= 100 && status < 200);
            } catch (IOException e) {
                throw sending != null ? sending : e;
            }
            clock.waitUpTo(timeouts.answer(), "to complete its answer");
            return new Response(status, answer, bodyOf(in, status, method, answer, socket), clock);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    private static Socket startTls(Socket plain, String host, int port) throws IOException {
        SSLSocket ssl = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault()).createSocket(plain, host, port, true);
        SSLParameters params = ssl.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host
        ssl.setSSLParameters(params);
        ssl.startHandshake();
        return ssl;
    }

    private static void writeHead(OutputStream out, URI uri, String method, Map<String, String> headers, Body body,
                                  String host, int port, boolean tls) throws IOException {
        String target = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        StringBuilder head = new StringBuilder(256).append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
        boolean defaultPort = port == (tls ? 443 : 80);
        head.append("Host: ").append(host.contains(":") ? "[" + host + "]" : host).append(defaultPort ? "" : ":" + port).append("\r\n");
        head.append("Connection: close\r\nUser-Agent: paddock-cli\r\n");
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getValue().indexOf('\r') >= 0 || h.getValue().indexOf('\n') >= 0) throw new IOException("header " + h.getKey() + " holds a line break");
            head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
        }
        // instanceof rather than a pattern switch: its bootstrap spins a class at run time, which a CLI call pays for
        if (body instanceof Body.Streamed) {
            head.append("Transfer-Encoding: chunked\r\n");
        } else if (body instanceof Body.Bytes b && b.bytes() != null) {
            head.append("Content-Length: ").append(b.bytes().length).append("\r\n");
        } else if (!"GET".equals(method) && !"HEAD".equals(method)) {
            head.append("Content-Length: 0\r\n");
        }
        out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private static void writeBody(OutputStream out, Body body) throws IOException {
        if (body instanceof Body.Bytes b) {
            if (b.bytes() != null) out.write(b.bytes());
        } else if (body instanceof Body.Streamed s) {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = s.content().get()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(buf, 0, n);
                    out.write('\r');
                    out.write('\n');
                }
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
    }

    /** Reads the status line and headers; answers the status code. */
    private static int readHead(InputStream in, Map<String, String> headers) throws IOException {
        int[] budget = {MAX_HEADER_BYTES};
        String status = line(in, budget);
        if (!status.startsWith("HTTP/1.") || status.length() < 12) throw new IOException("not an HTTP/1.1 answer");
        int code;
        try {
            code = Integer.parseInt(status.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status line");
        }
        for (String h = line(in, budget); !h.isEmpty(); h = line(in, budget)) {
            int colon = h.indexOf(':');
            if (colon > 0) headers.merge(h.substring(0, colon).trim(), h.substring(colon + 1).trim(), (a, b) -> a + ", " + b);
        }
        return code;
    }

    private static String line(InputStream in, int[] budget) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(80);
        while (true) {
            int c = in.read();
            if (c < 0) throw new EOFException("the connection closed inside the answer's headers");
            if (--budget[0] < 0) throw new IOException("the answer's headers are too large");
            if (c == '\n') break;
            if (c != '\r') buf.write(c);
        }
        return buf.toString(StandardCharsets.ISO_8859_1);
    }

    private static long contentLength(String header) throws IOException {
        try {
            long length = Long.parseLong(header.trim());
            if (length >= 0) return length;
        } catch (NumberFormatException e) {
            // below
        }
        throw new IOException("the answer's Content-Length is not a length: " + clip(header));
    }

    private static String clip(String s) {
        String printable = s.replaceAll("[^\\x20-\\x7e]", "?");
        return printable.length() > 40 ? printable.substring(0, 40) + "…" : printable;
    }

    private static InputStream bodyOf(InputStream in, int status, String method, Map<String, String> headers, Socket socket) throws IOException {
        InputStream raw;
        if ("HEAD".equals(method) || status == 204 || status == 304) {
            raw = InputStream.nullInputStream();
        } else if (headers.getOrDefault("Transfer-Encoding", "").toLowerCase(Locale.ROOT).contains("chunked")) {
            raw = new Chunked(in);
        } else if (headers.containsKey("Content-Length")) {
            // a length that is no number, or a body that ends before it, is a broken answer: never taken as a shorter one
            raw = LimitedInputStream.exactly(in, contentLength(headers.get("Content-Length")),
                    "the connection closed before the end of the answer");
        } else {
            raw = in; // to the end of the connection
        }
        return new FilterInputStream(raw) {
            @Override
            public void close() throws IOException {
                socket.close();
            }
        };
    }

    /**
     * Bounds every read from the socket. With a deadline (the head; a whole non-streaming body; the next line of an
     * event stream, pushed on by {@link #progressed}) no read goes past it, so a server that drips a byte at a time
     * cannot hold an answer open either; per read (a download) each read waits at most the limit.
     */
    static final class Clock {
        private final Socket socket;
        private volatile long deadline;
        private volatile Duration limit;
        private volatile boolean perRead;
        private volatile String waitingFor;

        Clock(Socket socket) {
            this.socket = socket;
        }

        /** From now on, everything read must have come within {@code limit}. */
        void waitUpTo(Duration limit, String waitingFor) {
            this.limit = limit;
            this.waitingFor = waitingFor;
            this.perRead = false;
            this.deadline = System.nanoTime() + limit.toNanos();
        }

        /** From now on, each read waits at most {@code limit}, however long the whole takes. */
        void eachReadWithin(Duration limit, String waitingFor) {
            this.limit = limit;
            this.waitingFor = waitingFor;
            this.perRead = true;
        }

        /** One unit (a line of an event stream, a keep-alive among them) came whole: the next has the limit anew. */
        void progressed() {
            deadline = System.nanoTime() + limit.toNanos();
        }

        InputStream input() throws IOException {
            InputStream raw = socket.getInputStream();
            return new FilterInputStream(raw) {
                @Override
                public int read() throws IOException {
                    arm();
                    try {
                        return super.read();
                    } catch (SocketTimeoutException e) {
                        throw timedOut();
                    }
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    arm();
                    try {
                        return super.read(b, off, len);
                    } catch (SocketTimeoutException e) {
                        throw timedOut();
                    }
                }
            };
        }

        private void arm() throws IOException {
            long wait = limit.toMillis();
            if (!perRead) {
                wait = (deadline - System.nanoTime()) / 1_000_000;
                if (wait <= 0) throw timedOut();
            }
            socket.setSoTimeout((int) Math.max(1, Math.min(wait, Integer.MAX_VALUE)));
        }

        private AnswerTimeoutException timedOut() {
            long ms = limit.toMillis();
            return new AnswerTimeoutException("the server sent nothing " + waitingFor + " within "
                    + (ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms"));
        }
    }

    /** A chunked body, decoded; trailers are read and dropped. */
    private static final class Chunked extends FilterInputStream {
        private long left;
        private boolean done;

        Chunked(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (done) return -1;
            if (left == 0) {
                left = nextChunkSize();
                if (left == 0) {
                    int[] budget = {MAX_HEADER_BYTES};
                    while (!line(in, budget).isEmpty()) { } // trailers
                    done = true;
                    return -1;
                }
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n < 0) throw new EOFException("the connection closed inside a chunk");
            left -= n;
            if (left == 0) line(in, new int[] {2}); // the CRLF after the chunk
            return n;
        }

        private long nextChunkSize() throws IOException {
            String size = line(in, new int[] {1024});
            int semi = size.indexOf(';');
            long parsed;
            try {
                parsed = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("a chunk size is not a number");
            }
            if (parsed < 0) throw new IOException("a chunk size is negative");
            return parsed;
        }
    }
}
