package dev.paddock.server.cluster;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.server.routes.ports.PortAnswers;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * Hands one request on to the node that holds its sandbox and streams the answer back: the body both ways as it
 * comes (an exec's SSE output arrives event by event), status and headers as the node sent them. The client's own
 * key stays here; the node gets the cluster secret and the caller this node authenticated ({@link NodeAuth}), or
 * no caller on a path that carries its own credential (a port's token URL), which the node checks itself. A
 * forwarded port's answer is filtered here as this node filters its own ({@link PortAnswers}).
 * Forwarding rather than redirecting keeps clients that drop credentials on a redirect to another host working.
 * A node that stops renewing its lease (frozen, partitioned, dead without closing its sockets) ends the wait for its
 * answer and the answer's relay within a second of its lease lapsing: no fixed limit fits both a create and an exec
 * that streams for an hour, but a node that lost its lease will not answer.
 */
final class Forwarder implements AutoCloseable {
    /** Headers that belong to one connection, carry the client's credential, or that the JDK client sets itself. */
    private static final Set<String> NOT_FORWARDED = Set.of("connection", "keep-alive", "transfer-encoding", "te", "trailer",
            "upgrade", "proxy-authorization", "proxy-connection", "host", "content-length", "expect", "authorization",
            "x-api-key", NodeAuth.SECRET_HEADER, NodeAuth.PRINCIPAL_HEADER, "http2-settings");
    private static final Set<String> NOT_RETURNED = Set.of("connection", "keep-alive", "transfer-encoding", "content-length",
            "date", "server", ":status");
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** How often a wait for a node's answer checks that the node still holds its lease. */
    static final Duration LIVENESS_CHECK = Duration.ofSeconds(1);
    /** What RFC 3986 allows unescaped in a path or query (unreserved, sub-delims, ':', '@', '/', '?'). */
    private static final String URI_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER)
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();
    private final NodeAuth auth;
    private final Predicate<String> nodeAlive;

    /** {@code nodeAlive}: whether a node still holds its lease (true when that cannot be known, e.g. the store is down; never throws). */
    Forwarder(NodeAuth auth, Predicate<String> nodeAlive) {
        this.auth = auth;
        this.nodeAlive = nodeAlive;
    }

    /**
     * Forwards the request to {@code nodeUrl}; {@code caller} null on a path that carries its own credential;
     * {@code body} null streams the request's own body. {@code answerWithin} (null: no limit) bounds the wait for the
     * answer's status line, for requests the node answers at once.
     */
    void forward(Context ctx, Principal caller, String nodeId, String nodeUrl, byte[] body, Duration answerWithin) {
        String query = ctx.queryString();
        URI target = target(stripSlash(nodeUrl), ctx.req().getRequestURI(), query);
        HttpRequest.Builder request = HttpRequest.newBuilder(target)
                .method(ctx.method().name(), publisher(ctx, body))
                .header(NodeAuth.SECRET_HEADER, auth.secret());
        if (caller != null) request.header(NodeAuth.PRINCIPAL_HEADER, NodeAuth.encode(caller));
        if (answerWithin != null) request.timeout(answerWithin);
        for (String name : Collections.list(ctx.req().getHeaderNames())) {
            String lower = name.toLowerCase(Locale.ROOT);
            // on a token path the Authorization header is not Paddock's key: the server in the sandbox gets it, as locally
            if (NOT_FORWARDED.contains(lower) && !(caller == null && lower.equals("authorization"))) continue;
            for (String value : Collections.list(ctx.req().getHeaders(name))) {
                try {
                    request.header(name, value);
                } catch (IllegalArgumentException e) {
                    throw new PaddockException(ErrorCode.BAD_REQUEST, "header '" + Text.clip(name, 60)
                            + "' holds characters that cannot be passed on to the node that holds this sandbox");
                }
            }
        }
        HttpResponse<InputStream> response = answer(client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream()), nodeId);
        Thread relaying = Thread.currentThread();
        AtomicBoolean done = new AtomicBoolean();
        Thread watch = Thread.ofVirtual().name("forward-watch").start(() -> {
            while (!done.get()) {
                try {
                    Thread.sleep(LIVENESS_CHECK);
                } catch (InterruptedException e) {
                    return;
                }
                if (!done.get() && !nodeAlive.test(nodeId)) {
                    // ends the relay's read: the body stream gives up on an interrupt
                    if (!done.get()) relaying.interrupt();
                    return;
                }
            }
        });
        try {
            relay(ctx, response, PortAnswers.isProxyPath(ctx.path()));
        } finally {
            done.set(true);
            watch.interrupt();
            boolean joined = false;
            while (!joined) {
                try {
                    watch.join();
                    joined = true;
                } catch (InterruptedException e) {
                    // the watch's own interrupt: cleared below
                }
            }
            Thread.interrupted(); // an interrupt from the watch is spent on the relay, not on what this thread does next
        }
    }

    /** The answer's head, waited for while the node holds its lease. */
    private HttpResponse<InputStream> answer(CompletableFuture<HttpResponse<InputStream>> pending, String nodeId) {
        try {
            for (;;) {
                try {
                    return pending.get(LIVENESS_CHECK.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (!nodeAlive.test(nodeId)) {
                        pending.cancel(true);
                        throw new PaddockException(ErrorCode.NODE_UNREACHABLE, "node " + nodeId
                                + " (which holds this sandbox) stopped renewing its lease before it answered; retry, or wait until it is marked lost and its sandboxes failed");
                    }
                }
            }
        } catch (ExecutionException e) {
            throw new PaddockException(ErrorCode.NODE_UNREACHABLE, "node " + nodeId + " (which holds this sandbox) did not answer ("
                    + e.getCause().getClass().getSimpleName() + "); retry, or wait until it is marked lost and its sandboxes failed");
        } catch (InterruptedException e) {
            pending.cancel(true);
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "the forwarded request was interrupted");
        }
    }

    private static HttpRequest.BodyPublisher publisher(Context ctx, byte[] body) {
        if (body != null) return HttpRequest.BodyPublishers.ofByteArray(body);
        String length = ctx.header("Content-Length");
        boolean none = ("0".equals(length) || length == null && ctx.header("Transfer-Encoding") == null);
        if (none) return HttpRequest.BodyPublishers.noBody();
        return HttpRequest.BodyPublishers.ofInputStream(() -> {
            try {
                return ctx.req().getInputStream();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Copies status, headers and the body, flushing each read so streamed answers (SSE) pass at once. */
    private static void relay(Context ctx, HttpResponse<InputStream> response, boolean portAnswer) {
        ctx.status(response.statusCode());
        response.headers().map().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (NOT_RETURNED.contains(lower) || portAnswer && !PortAnswers.mayReturn(lower)) return;
            List<String> vs = values;
            ctx.res().setHeader(name, vs.getFirst());
            for (int i = 1; i < vs.size(); i++) ctx.res().addHeader(name, vs.get(i));
        });
        if (portAnswer) PortAnswers.protect(ctx.res());
        try (InputStream in = response.body()) {
            OutputStream out = ctx.res().getOutputStream();
            byte[] buffer = new byte[16 * 1024];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                if (in.available() == 0) out.flush();
            }
            out.flush();
        } catch (IOException e) {
            // the client or the node went away mid-answer: nothing more can be said on this response
        }
    }

    /**
     * The node's URL for the client's raw path and query. Jetty accepts characters in a request target that
     * {@link URI} refuses (such as {@code <}, {@code |} or a lone {@code %}): those are percent-encoded, which the
     * receiving node decodes to the same path and parameters.
     */
    static URI target(String nodeUrl, String rawPath, String rawQuery) {
        try {
            return URI.create(nodeUrl + escapeIllegal(rawPath) + (rawQuery == null ? "" : "?" + escapeIllegal(rawQuery)));
        } catch (IllegalArgumentException e) {
            throw new PaddockException(ErrorCode.BAD_REQUEST, "the request's path or query cannot be passed on to the node that holds this sandbox");
        }
    }

    private static String escapeIllegal(String raw) {
        StringBuilder out = new StringBuilder(raw.length() + 16);
        for (int i = 0; i < raw.length(); ) {
            int c = raw.codePointAt(i);
            boolean escapePair = c == '%' && i + 2 < raw.length() && isHex(raw.charAt(i + 1)) && isHex(raw.charAt(i + 2));
            if (escapePair || c < 0x80 && URI_CHARS.indexOf(c) >= 0) {
                out.append((char) c);
            } else {
                for (byte b : Character.toString(c).getBytes(StandardCharsets.UTF_8)) out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
            i += Character.charCount(c);
        }
        return out.toString();
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    @Override
    public void close() {
        client.close();
    }
}
