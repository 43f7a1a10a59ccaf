package dev.paddock.server.cluster;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.server.http.ApiErrors;
import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.eclipse.jetty.ee10.websocket.server.JettyWebSocketServerContainer;

/**
 * Hands a WebSocket on to the node that holds its sandbox: opens the same path there first (with the cluster
 * secret; the path's own token is checked by that node, which keeps its tokens), so a refusal there (an unknown
 * token, a sandbox that is gone) reaches the client as that node's answer; then accepts the client's upgrade here
 * and joins the two sockets ({@link WebSocketBridge}). A joined pair ends, with 1011 for the client, within a second or
 * two of the holder's lease lapsing: a frozen or partitioned node neither sends nor closes, and its socket would
 * otherwise hold the client for as long as the connection idles.
 */
final class WebSocketForwarder implements AutoCloseable {
    private static final Duration HANDSHAKE = Duration.ofSeconds(10);
    /** The most of a refusal's body passed back: the holder's JSON error. */
    private static final int MAX_REFUSAL = 16 * 1024;

    private final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();
    private final NodeAuth auth;
    private final Predicate<String> nodeAlive;
    /** The joined pairs still open, with the node that holds each one's sandbox. */
    private final Map<WebSocketBridge, String> joined = new ConcurrentHashMap<>();
    private final Thread leaseWatch;

    /** {@code nodeAlive}: whether a node still holds its lease (true when that cannot be known, e.g. the store is down; never throws). */
    WebSocketForwarder(NodeAuth auth, Predicate<String> nodeAlive) {
        this.auth = auth;
        this.nodeAlive = nodeAlive;
        this.leaseWatch = Thread.ofVirtual().name("websocket-lease-watch").start(this::watchLeases);
    }

    /** Ends the pairs whose holder stopped renewing its lease; forgets the pairs that ended on their own. */
    private void watchLeases() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(Forwarder.LIVENESS_CHECK); // as often as a forwarded request's wait
            } catch (InterruptedException e) {
                return;
            }
            joined.keySet().removeIf(WebSocketBridge::finished);
            Map<String, Boolean> alive = new HashMap<>();
            joined.forEach((bridge, nodeId) -> {
                if (!alive.computeIfAbsent(nodeId, nodeAlive::test)) {
                    joined.remove(bridge);
                    bridge.holderLost("node " + nodeId + " (which holds the sandbox) stopped renewing its lease");
                }
            });
        }
    }

    /** Relays the upgrade request in {@code ctx} to the node; always answers it (throws {@link ApiErrors.Answered} once done). */
    void forward(Context ctx, String nodeId, String nodeUrl) throws IOException {
        String query = ctx.req().getQueryString();
        URI target = Forwarder.target(webSocketBase(nodeUrl), ctx.req().getRequestURI(), query);
        WebSocket.Builder builder = client.newWebSocketBuilder().connectTimeout(HANDSHAKE).header(NodeAuth.SECRET_HEADER, auth.secret());
        try {
            String origin = ctx.header("Origin");
            if (origin != null) builder.header("Origin", origin);
            List<String> protocols = subprotocols(ctx.header("Sec-WebSocket-Protocol"));
            if (!protocols.isEmpty()) builder.subprotocols(protocols.getFirst(), protocols.subList(1, protocols.size()).toArray(String[]::new));
        } catch (IllegalArgumentException e) {
            throw new PaddockException(ErrorCode.BAD_REQUEST, "the Origin or Sec-WebSocket-Protocol header cannot be passed on to the node "
                    + "that holds this sandbox");
        }
        WebSocketBridge bridge = new WebSocketBridge();
        WebSocket holder;
        try {
            holder = builder.buildAsync(target, bridge).get(HANDSHAKE.toSeconds() + 1, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) relayRefusal(ctx.res(), refused);
            if (e.getCause() instanceof IllegalArgumentException) { // the client's subprotocols or headers, refused by the node client
                throw new PaddockException(ErrorCode.BAD_REQUEST, "the Origin or Sec-WebSocket-Protocol header cannot be passed on to the node "
                        + "that holds this sandbox");
            }
            throw unreachable(nodeId, e.getCause());
        } catch (TimeoutException e) {
            throw unreachable(nodeId, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "the forwarded WebSocket was interrupted");
        }
        bridge.connected(holder);
        String chosen = holder.getSubprotocol();
        boolean upgraded = JettyWebSocketServerContainer.getContainer(ctx.req().getServletContext()).upgrade((req, res) -> {
            res.setAcceptedSubProtocol(chosen.isEmpty() ? null : chosen);
            return bridge;
        }, ctx.req(), ctx.res());
        if (!upgraded) {
            holder.abort();
            throw new PaddockException(ErrorCode.WEBSOCKET_UPGRADE_REQUIRED, "this endpoint is a WebSocket: connect with a WebSocket upgrade");
        }
        joined.put(bridge, nodeId);
        throw new ApiErrors.Answered();
    }

    /** The holder refused the socket: the client gets its status and JSON error as if it had asked there. */
    private static void relayRefusal(HttpServletResponse res, WebSocketHandshakeException refused) throws IOException {
        var answer = refused.getResponse();
        Object body = answer.body();
        byte[] bytes = body instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : new byte[0];
        if (bytes.length > MAX_REFUSAL) bytes = new byte[0];
        res.setStatus(answer.statusCode() >= 400 && answer.statusCode() < 600 ? answer.statusCode() : 502);
        res.setContentType("application/json");
        res.setHeader("Cache-Control", "no-store");
        res.setContentLength(bytes.length);
        res.getOutputStream().write(bytes);
        res.flushBuffer();
        throw new ApiErrors.Answered();
    }

    private static PaddockException unreachable(String nodeId, Throwable cause) {
        return new PaddockException(ErrorCode.NODE_UNREACHABLE, "node " + nodeId + " (which holds this sandbox) did not accept the WebSocket ("
                + cause.getClass().getSimpleName() + "); retry, or wait until it is marked lost and its sandboxes failed");
    }

    private static List<String> subprotocols(String header) {
        if (header == null || header.isBlank()) return List.of();
        return Arrays.stream(header.split(",")).map(String::strip).filter(p -> !p.isEmpty()).toList();
    }

    private static String webSocketBase(String nodeUrl) {
        String base = nodeUrl.endsWith("/") ? nodeUrl.substring(0, nodeUrl.length() - 1) : nodeUrl;
        if (base.startsWith("https://")) return "wss://" + base.substring("https://".length());
        if (base.startsWith("http://")) return "ws://" + base.substring("http://".length());
        return base;
    }

    @Override
    public void close() {
        leaseWatch.interrupt();
        client.close();
    }
}
