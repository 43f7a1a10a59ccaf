package dev.paddock.server.routes.ports;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.host.ports.PortForwards;
import dev.paddock.host.ports.PortForwards.OpenPort;
import dev.paddock.server.http.ApiErrors;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.websocket.WsContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.eclipse.jetty.websocket.api.Callback;
import tools.jackson.databind.JsonNode;

/**
 * Forwarded ports: open, list, get and close them (API key), and the proxy to each, HTTP and WebSocket, at
 * {@code …/ports/{port}/proxy/…} (API key) or {@code …/ports/{port}/t/{token}/…} (the port's token: the URL a
 * browser can open). Registered after the sandbox routes.
 */
public final class PortRoutes {
    static final String PORTS = "/v1/sandboxes/{id}/ports";
    private static final String PORT = PORTS + "/{port}";
    private static final String BY_KEY = PORT + "/proxy";
    private static final String BY_TOKEN = PORT + "/t/{token}";
    /** A path under a port's token URL: carries the token instead of an API key. */
    private static final Pattern TOKEN_PATH = Pattern.compile("/v1/sandboxes/[^/]+/ports/[0-9]+/t/[^/]+(/.*)?");
    private static final List<HandlerType> METHODS = List.of(HandlerType.GET, HandlerType.POST, HandlerType.PUT, HandlerType.PATCH,
            HandlerType.DELETE, HandlerType.HEAD, HandlerType.OPTIONS);
    private static final String RELAY = "paddock.port-relay";
    private static final String PORT_ATTR = "paddock.port";
    private static final String TARGET_ATTR = "paddock.port-target";

    private final PortForwards ports;
    private final Bodies bodies;
    private final ApiJson json;
    private final HttpPortProxy proxy;

    public PortRoutes(PortForwards ports, Bodies bodies, ApiJson json) {
        this.ports = ports;
        this.bodies = bodies;
        this.json = json;
        this.proxy = new HttpPortProxy(ports);
    }

    /** Requests on a port's token URL carry the token, not an API key. */
    public static boolean isPublic(String path) {
        return TOKEN_PATH.matcher(path).matches();
    }

    /** What the API shows of an open port: its token and the URL that carries it. */
    public record PortView(int port, String sandboxId, String token, String url, Instant createdAt) {
        static PortView of(OpenPort p) {
            return new PortView(p.port(), p.sandboxId(), p.token(),
                    "/v1/sandboxes/" + p.sandboxId() + "/ports/" + p.port() + "/t/" + p.token() + "/", p.createdAt());
        }
    }

    public void register(RoutesConfig r) {
        r.post(PORTS, this::open);
        r.get(PORTS, ctx -> ctx.json(new Views.DataList<>(ports.list(Auth.principal(ctx), sandboxId(ctx)).stream().map(PortView::of).toList())));
        r.get(PORT, ctx -> ctx.json(PortView.of(ports.get(Auth.principal(ctx), sandboxId(ctx), port(ctx)))));
        r.delete(PORT, ctx -> {
            ports.close(Auth.principal(ctx), sandboxId(ctx), port(ctx));
            ctx.status(204);
        });
        for (HandlerType m : METHODS) {
            for (String path : List.of(BY_KEY, BY_KEY + "/<path>")) {
                r.addHttpHandler(m, path, ctx -> proxy.proxy(ctx, ports.get(Auth.principal(ctx), sandboxId(ctx), port(ctx)), target(ctx, 6), true));
            }
            for (String path : List.of(BY_TOKEN, BY_TOKEN + "/<path>")) {
                r.addHttpHandler(m, path, this::byToken);
            }
        }
        for (String path : List.of(BY_TOKEN, BY_TOKEN + "/<path>")) {
            r.wsBeforeUpgrade(path, ctx -> {
                try {
                    ctx.attribute(PORT_ATTR, ports.byToken(sandboxId(ctx), port(ctx), ctx.pathParam("token")));
                    ctx.attribute(TARGET_ATTR, target(ctx, 7)); // the upgrade request is not readable once upgraded
                } catch (PaddockException e) {
                    ApiErrors.refuseUpgrade(ctx, json, e);
                }
            });
            r.ws(path, ws -> {
                ws.onConnect(this::connectWebSocket);
                ws.onMessage(ctx -> relay(ctx).forward(WebSocketClient.TEXT, ctx.message().getBytes(StandardCharsets.UTF_8)));
                ws.onBinaryMessage(ctx -> relay(ctx).forward(WebSocketClient.BINARY, bytes(ctx.data())));
                ws.onClose(ctx -> { WebSocketRelay w = ctx.attribute(RELAY); if (w != null) w.close(); });
                ws.onError(ctx -> { WebSocketRelay w = ctx.attribute(RELAY); if (w != null) w.close(); });
            });
        }
    }

    private void open(Context ctx) {
        JsonNode body = bodies.json(ctx, JsonNode.class);
        JsonNode port = body == null ? null : body.get("port");
        if (port == null || port.isNull()) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'port' is required: the port a server listens on inside the sandbox");
        if (!port.isIntegralNumber() || !port.canConvertToInt()) throw new PaddockException(ErrorCode.INVALID_PORT, "field 'port' must be a number from 1 to 65535");
        OpenPort p = ports.open(Auth.principal(ctx), sandboxId(ctx), port.asInt());
        ctx.status(201).json(PortView.of(p));
    }

    private void byToken(Context ctx) throws IOException {
        OpenPort p = ports.byToken(sandboxId(ctx), port(ctx), ctx.pathParam("token"));
        String raw = ctx.req().getRequestURI();
        if (segments(raw) == 7 && !raw.endsWith("/")) {
            // relative links of the page resolve under the token's URL only with the slash
            ctx.status(308).header("Location", raw + "/" + (ctx.req().getQueryString() == null ? "" : "?" + ctx.req().getQueryString()));
            return;
        }
        proxy.proxy(ctx, p, target(ctx, 7), false);
    }

    /** The raw path and query after the first {@code prefixSegments} segments of the request path. */
    private static String target(Context ctx, int prefixSegments) {
        String raw = ctx.req().getRequestURI();
        int at = 0;
        for (int i = 0; i <= prefixSegments && at >= 0; i++) at = raw.indexOf('/', at + (i == 0 ? 0 : 1));
        String path = at < 0 ? "/" : raw.substring(at);
        String q = ctx.req().getQueryString();
        return q == null ? path : path + "?" + q;
    }

    private static int segments(String raw) {
        return (int) raw.chars().filter(c -> c == '/').count() - (raw.endsWith("/") ? 1 : 0);
    }

    private void connectWebSocket(WsContext ctx) {
        OpenPort p = ctx.attribute(PORT_ATTR);
        if (p == null) {
            ctx.closeSession(4401, "invalid port token");
            return;
        }
        ctx.session.setIdleTimeout(Duration.ofMinutes(30));
        ctx.session.setMaxTextMessageSize(WebSocketClient.MAX_MESSAGE);
        ctx.session.setMaxBinaryMessageSize(WebSocketClient.MAX_MESSAGE);
        String target = ctx.attribute(TARGET_ATTR);
        RelayStream in = new RelayStream(HttpPortProxy.HEAD_TIMEOUT);
        ExecHandle h;
        try {
            h = ports.connect(p, in);
        } catch (PaddockException e) {
            ctx.closeSession(1011, Text.clip(e.getMessage(), 120));
            return;
        }
        in.endWith(h);
        WebSocketRelay relay = new WebSocketRelay(new WebSocketClient(in, h.stdin()), h, in, new Peer(ctx));
        ctx.attribute(RELAY, relay);
        Thread.ofVirtual().name("paddock-port-websocket").start(() -> relay.run(target, p.port()));
    }

    private static WebSocketRelay relay(WsContext ctx) {
        WebSocketRelay r = ctx.attribute(RELAY);
        if (r == null) throw new PaddockException(ErrorCode.SOCKET_CLOSED, "the WebSocket is not relayed");
        return r;
    }

    private static byte[] bytes(ByteBuffer data) {
        byte[] out = new byte[data.remaining()];
        data.get(out);
        return out;
    }


    private static String sandboxId(Context ctx) {
        return Params.pathId(ctx, "id", "sbx", "sandbox id");
    }

    private static int port(Context ctx) {
        return port(ctx.pathParam("port"));
    }

    private static int port(String s) {
        try {
            int p = Integer.parseInt(s);
            PortForwards.requirePort(p);
            return p;
        } catch (NumberFormatException e) {
            throw new PaddockException(ErrorCode.INVALID_PORT, "port must be a number from 1 to 65535, got '" + Text.clip(s, 20) + "'");
        }
    }

    /** Sends to the browser's side, one frame at a time (Jetty allows one outstanding write per session). */
    record Peer(WsContext ctx) implements WebSocketRelay.Peer {
        @Override
        public synchronized void send(int opcode, byte[] payload) throws Exception {
            Callback.Completable done = new Callback.Completable();
            if (opcode == WebSocketClient.TEXT) ctx.session.sendText(new String(payload, StandardCharsets.UTF_8), done);
            else ctx.session.sendBinary(ByteBuffer.wrap(payload), done);
            done.get();
        }

        @Override
        public void close(int code, String reason) {
            try {
                ctx.closeSession(code, reason);
            } catch (RuntimeException ignored) {
                // already closed
            }
        }
    }
}
