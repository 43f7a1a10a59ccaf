package dev.paddock.server.routes.ports;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.LimitedInputStream;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.host.ports.PortForwards;
import dev.paddock.server.cluster.NodeAuth;
import dev.paddock.server.http.Streams;
import dev.paddock.host.ports.PortForwards.OpenPort;
import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One HTTP request to a forwarded port: sent over a fresh relay into the sandbox as HTTP/1.1 with
 * {@code Connection: close}, the answer read back as hostile (see {@link ResponseHead}). Hop-by-hop headers are
 * not passed either way; cookies are not passed either way (the proxied pages share the console's origin); the
 * answer is served in a CSP sandbox without same-origin rights, so its scripts can reach neither the console's
 * storage nor its API, and with no referrer, so the port's token never leaves in a Referer.
 */
final class HttpPortProxy {
    static final Duration HEAD_TIMEOUT = Duration.ofSeconds(60);
    static final Duration BODY_IDLE_TIMEOUT = Duration.ofMinutes(5);
    private static final int MAX_INTERIM = 8;
    private static final Pattern METHOD = Pattern.compile("[A-Z]{1,20}");
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
            "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length");
    /** Request headers that are Paddock's (its credentials, a forwarding node's) or the console origin's (cookies): never sent inside. */
    private static final Set<String> NOT_FORWARDED = Set.of("x-api-key", "cookie", "cookie2", NodeAuth.SECRET_HEADER, NodeAuth.PRINCIPAL_HEADER);

    private final PortForwards ports;

    HttpPortProxy(PortForwards ports) {
        this.ports = ports;
    }

    /**
     * Proxies {@code ctx} to the open port; {@code target} is the path and query inside (raw, as the client sent
     * it); {@code stripAuthorization} when the Authorization header carried Paddock's API key.
     */
    void proxy(Context ctx, OpenPort port, String target, boolean stripAuthorization) throws IOException {
        HttpServletRequest req = ctx.req();
        String method = req.getMethod();
        if (!METHOD.matcher(method).matches()) throw new PaddockException(ErrorCode.METHOD_NOT_ALLOWED, "a forwarded port takes methods of up to 20 capital letters");
        RelayStream in = new RelayStream(HEAD_TIMEOUT);
        ExecHandle relay = ports.connect(port, in);
        in.endWith(relay);
        try {
            UpstreamWrites up = new UpstreamWrites(relay.stdin());
            long length = req.getContentLengthLong();
            boolean chunkedBody = length < 0 && "chunked".equalsIgnoreCase(Text.clip(String.valueOf(req.getHeader("Transfer-Encoding")), 40));
            up.write(requestHead(req, method, target, port.port(), length, chunkedBody, stripAuthorization));
            copyBody(req.getInputStream(), up, length, chunkedBody);
            up.flush();
            ResponseHead head;
            try {
                head = ResponseHead.read(in);
            } catch (SocketTimeoutException e) {
                throw new PaddockException(ErrorCode.UPSTREAM_TIMEOUT, "the server on port " + port.port() + " of sandbox " + port.sandboxId() + " did not answer within " + HEAD_TIMEOUT.toSeconds() + "s");
            }
            for (int interim = 0; head != null && head.status() >= 100 && head.status() < 200; interim++) {
                if (interim >= MAX_INTERIM) throw ResponseHead.invalid("the server on port " + port.port() + " sent more than " + MAX_INTERIM + " interim (1xx) answers");
                head = ResponseHead.read(in); // interim answers (100 Continue, 103 Early Hints) are not passed on
            }
            if (head == null) throw noAnswer(port, in);
            in.timeout(BODY_IDLE_TIMEOUT);
            respond(ctx, head, method, in);
        } finally {
            relay.kill();
            in.close();
        }
    }

    private static PaddockException noAnswer(OpenPort port, RelayStream in) {
        ExecResult r = awaitResult(in);
        if (r != null && r.exitCode() == Sandbox.PORT_NOT_LISTENING) {
            return new PaddockException(ErrorCode.PORT_NOT_LISTENING, "nothing listens on 127.0.0.1:" + port.port() + " inside sandbox " + port.sandboxId()
                    + "; start the server there (bound to 127.0.0.1 or 0.0.0.0)");
        }
        return ResponseHead.invalid("the server on port " + port.port() + " closed the connection without answering");
    }

    private static ExecResult awaitResult(RelayStream in) {
        for (int i = 0; i < 50 && in.result() == null; i++) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return in.result();
    }

    static byte[] requestHead(HttpServletRequest req, String method, String target, int port, long length, boolean chunked, boolean stripAuthorization) {
        if (target.chars().anyMatch(c -> c <= 0x20 || c == 0x7f)) throw new PaddockException(ErrorCode.BAD_REQUEST, "the path holds characters a request line cannot carry");
        StringBuilder h = new StringBuilder(512);
        h.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
        h.append("Host: 127.0.0.1:").append(port).append("\r\n");
        Set<String> named = connectionNamed(Collections.list(req.getHeaders("Connection")));
        for (String name : Collections.list(req.getHeaderNames())) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (HOP_BY_HOP.contains(lower) || NOT_FORWARDED.contains(lower) || named.contains(lower)) continue;
            if (stripAuthorization && lower.equals("authorization")) continue;
            if (lower.startsWith("x-forwarded-")) continue;
            for (String v : Collections.list(req.getHeaders(name))) h.append(name).append(": ").append(v).append("\r\n");
        }
        h.append("X-Forwarded-Proto: ").append(req.isSecure() ? "https" : "http").append("\r\n");
        if (length >= 0) h.append("Content-Length: ").append(length).append("\r\n");
        else if (chunked) h.append("Transfer-Encoding: chunked\r\n");
        h.append("Connection: close\r\n\r\n");
        return h.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static Set<String> connectionNamed(Iterable<String> connectionHeaders) {
        Set<String> out = new HashSet<>();
        for (String v : connectionHeaders) for (String t : v.split(",")) out.add(t.strip().toLowerCase(Locale.ROOT));
        return out;
    }

    private static void copyBody(InputStream body, UpstreamWrites up, long length, boolean chunked) throws IOException {
        if (length == 0 || (length < 0 && !chunked)) return;
        byte[] buf = new byte[64 * 1024];
        for (int n; !up.closed && (n = body.read(buf)) > 0; ) {
            if (chunked) up.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            up.write(buf, 0, n);
            if (chunked) up.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        if (chunked) up.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The request's way into the sandbox. The server there may stop reading and close at any point (having answered
     * early, or not at all); what is left of the request is then dropped, and its answer, or its absence, is what
     * the client gets (never a 500 for what the sandbox did).
     */
    private static final class UpstreamWrites extends OutputStream {
        private final OutputStream relay;
        boolean closed;

        UpstreamWrites(OutputStream relay) {
            this.relay = relay;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (closed) return;
            try {
                relay.write(b, off, len);
            } catch (IOException e) {
                closed = true;
            }
        }

        @Override
        public void flush() {
            if (closed) return;
            try {
                relay.flush();
            } catch (IOException e) {
                closed = true;
            }
        }
    }

    private static void respond(Context ctx, ResponseHead head, String method, RelayStream in) throws IOException {
        HttpServletResponse res = ctx.res();
        res.setStatus(head.status());
        Set<String> named = connectionNamed(head.values("Connection"));
        res.setContentType(null); // the API's default (JSON) is not the answer's: it has its own, or none
        for (String[] h : head.headers()) {
            String lower = h[0].toLowerCase(Locale.ROOT);
            if (HOP_BY_HOP.contains(lower) || !PortAnswers.mayReturn(lower) || named.contains(lower)) continue;
            if (lower.equals("cache-control") || lower.equals("content-type") || lower.equals("content-security-policy")) {
                res.setHeader(h[0], null); // replace the server's own defaults for these (Cache-Control: no-store on /v1)
            }
        }
        for (String[] h : head.headers()) {
            String lower = h[0].toLowerCase(Locale.ROOT);
            if (HOP_BY_HOP.contains(lower) || !PortAnswers.mayReturn(lower) || named.contains(lower)) continue;
            if (lower.equals("date")) continue; // the server dates every answer itself: a second Date would contradict it
            res.addHeader(h[0], h[1]);
        }
        PortAnswers.protect(res);
        boolean noBody = method.equals("HEAD") || head.status() == 204 || head.status() == 304;
        long length = head.chunked() ? -1 : head.contentLength();
        if (length >= 0) res.setContentLengthLong(length);
        if (noBody) return;
        InputStream body = head.chunked() ? new ChunkedInputStream(in) : length >= 0 ? LimitedInputStream.upTo(in, length) : in;
        OutputStream out = res.getOutputStream();
        byte[] buf = new byte[64 * 1024];
        try {
            for (int n; (n = body.read(buf)) > 0; ) {
                out.write(buf, 0, n);
                if (in.available() == 0) out.flush(); // streams (server-sent events) reach the client as they come
            }
        } catch (SocketTimeoutException | PaddockException e) {
            // the status is out already: a broken transfer, not a short body that looks complete
            Streams.abort(ctx, e);
            return;
        }
        out.flush();
    }
}
