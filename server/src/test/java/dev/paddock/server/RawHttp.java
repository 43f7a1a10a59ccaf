package dev.paddock.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * HTTP/1.1 over a plain socket, for requests a client library would refuse to send (bad chunking, a body shorter
 * than its Content-Length, raw bytes in the path). Every read has a deadline, so a server that hangs fails the test.
 */
final class RawHttp {
    private RawHttp() {}

    /** An answer; {@code status} is -1 when the server closed the connection without one. */
    record Answer(int status, String head, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) return line.substring(colon + 1).trim();
            }
            return null;
        }
    }

    static String latin1(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Sends {@code request} as is (it should say {@code Connection: close}) and reads the answer until the server closes. */
    static Answer send(int port, byte[] request, Duration deadline) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout((int) deadline.toMillis());
            OutputStream out = s.getOutputStream();
            try {
                out.write(request);
                out.flush();
            } catch (java.net.SocketException cut) {
                // the server answered and closed before taking the whole body (a 413): its answer is still there to read
            }
            return read(s.getInputStream(), deadline);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Answer read(InputStream in, Duration deadline) throws IOException {
        long end = System.nanoTime() + deadline.toNanos();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                all.write(buf, 0, n);
                if (System.nanoTime() > end) throw new AssertionError("the answer did not end within " + deadline);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no complete answer within " + deadline + "; got so far: " + clip(latin1(all.toByteArray())));
        } catch (java.net.SocketException e) {
            // reset by the server after its answer: keep what arrived
        }
        byte[] raw = all.toByteArray();
        String text = latin1(raw);
        int split = text.indexOf("\r\n\r\n");
        if (split < 0) return new Answer(-1, text, new byte[0]);
        String head = text.substring(0, split);
        String[] first = head.split(" ", 3);
        int status = first.length > 1 ? Integer.parseInt(first[1]) : -1;
        byte[] body = java.util.Arrays.copyOfRange(raw, split + 4, raw.length);
        Answer a = new Answer(status, head, body);
        String te = a.header("Transfer-Encoding");
        if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) a = new Answer(status, head, dechunk(body));
        return a;
    }

    private static byte[] dechunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < body.length) {
            int eol = indexOf(body, i);
            if (eol < 0) break;
            String size = latin1(java.util.Arrays.copyOfRange(body, i, eol)).split(";")[0].trim();
            int n;
            try {
                n = Integer.parseInt(size, 16);
            } catch (NumberFormatException e) {
                break;
            }
            if (n == 0) break;
            int start = eol + 2;
            out.write(body, start, Math.min(n, body.length - start));
            i = start + n + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) if (b[i] == '\r' && b[i + 1] == '\n') return i;
        return -1;
    }

    static String clip(String s) {
        return s.length() > 500 ? s.substring(0, 500) + "…" : s;
    }
}
