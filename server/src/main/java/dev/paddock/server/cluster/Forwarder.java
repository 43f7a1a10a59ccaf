package dev.paddock.server.cluster;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.server.routes.ports.PortAnswers;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executors;

/**
 * Hands one request on to the node that holds its sandbox and streams the answer back: the body both ways as it
 * comes (an exec's SSE output arrives event by event), status and headers as the node sent them. The client's own
 * key stays here; the node gets the cluster secret and the caller this node authenticated ({@link NodeAuth}), or
 * no caller on a path that carries its own credential (a port's token URL), which the node checks itself. A
 * forwarded port's answer is filtered here as this node filters its own ({@link PortAnswers}).
 * Forwarding rather than redirecting keeps clients that drop credentials on a redirect to another host working.
 */
final class Forwarder implements AutoCloseable {
    /** Headers that belong to one connection, carry the client's credential, or that the JDK client sets itself. */
    private static final Set<String> NOT_FORWARDED = Set.of("connection", "keep-alive", "transfer-encoding", "te", "trailer",
            "upgrade", "proxy-authorization", "proxy-connection", "host", "content-length", "expect", "authorization",
            "x-api-key", NodeAuth.SECRET_HEADER, NodeAuth.PRINCIPAL_HEADER, "http2-settings");
    private static final Set<String> NOT_RETURNED = Set.of("connection", "keep-alive", "transfer-encoding", "content-length",
            "date", "server", ":status");
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER)
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();
    private final NodeAuth auth;

    Forwarder(NodeAuth auth) {
        this.auth = auth;
    }

    /**
     * Forwards the request to {@code nodeUrl}; {@code caller} null on a path that carries its own credential;
     * {@code body} null streams the request's own body. {@code answerWithin} (null: no limit) bounds the wait for the
     * answer's status line, for requests the node answers at once.
     */
    void forward(Context ctx, Principal caller, String nodeId, String nodeUrl, byte[] body, Duration answerWithin) {
        String query = ctx.queryString();
        URI target = URI.create(stripSlash(nodeUrl) + ctx.req().getRequestURI() + (query == null ? "" : "?" + query));
        HttpRequest.Builder request = HttpRequest.newBuilder(target)
                .method(ctx.method().name(), publisher(ctx, body))
                .header(NodeAuth.SECRET_HEADER, auth.secret());
        if (caller != null) request.header(NodeAuth.PRINCIPAL_HEADER, NodeAuth.encode(caller));
        if (answerWithin != null) request.timeout(answerWithin);
        for (String name : ctx.headerMap().keySet()) {
            String lower = name.toLowerCase(Locale.ROOT);
            // on a token path the Authorization header is not Paddock's key: the server in the sandbox gets it, as locally
            if (NOT_FORWARDED.contains(lower) && !(caller == null && lower.equals("authorization"))) continue;
            String value = ctx.header(name);
            if (value != null) request.header(name, value);
        }
        HttpResponse<InputStream> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.NODE_UNREACHABLE, "node " + nodeId + " (which holds this sandbox) did not answer ("
                    + e.getClass().getSimpleName() + "); retry, or wait until it is marked lost and its sandboxes failed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "the forwarded request was interrupted");
        }
        relay(ctx, response, PortAnswers.isProxyPath(ctx.path()));
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

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    @Override
    public void close() {
        client.close();
    }
}
