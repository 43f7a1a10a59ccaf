package dev.paddock.browservm.web;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.driver.browservm.BrowserRuntime;
import dev.paddock.driver.browservm.BrowserVm;
import dev.paddock.driver.browservm.Frames;
import dev.paddock.driver.browservm.PairingCodes;
import dev.paddock.driver.browservm.RelayConnection;
import dev.paddock.driver.browservm.RelayPeer;
import dev.paddock.server.http.ApiErrors;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.time.Duration;
import org.eclipse.jetty.websocket.api.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paired runtimes (browser-vm tabs and paired daemons): mint a pairing code (API key), exchange it for a runtime token (the code is
 * the credential), list/get/revoke runtimes (API key), and the relay WebSocket (runtime token in the query string,
 * since browsers cannot set WebSocket headers; the token is never logged).
 */
final class RuntimeRoutes {
    private static final Logger log = LoggerFactory.getLogger(RuntimeRoutes.class);
    static final String EXCHANGE = "/v1/runtimes/exchange";
    static final String RELAY = "/v1/runtimes/relay";
    /** A tab asks whether its runtime token still works (a refused WebSocket upgrade tells a page nothing). */
    static final String SELF = "/v1/runtimes/self";
    private static final String CONNECTION = "paddock.relay";

    private final BrowserVm vm;
    private final Bodies bodies;
    private final ApiJson json;

    RuntimeRoutes(BrowserVm vm, Bodies bodies, ApiJson json) {
        this.vm = vm;
        this.bodies = bodies;
        this.json = json;
    }

    /**
     * Requests that carry their own credential instead of an API key: the code exchange (POST), the relay (GET, a
     * WebSocket upgrade with the runtime token) and a tab's own runtime (GET, its token as bearer). Any other method
     * on these paths needs an API key like the rest.
     */
    static boolean isPublic(String method, String path) {
        return ("POST".equals(method) && path.equals(EXCHANGE)) || ("GET".equals(method) && (path.equals(RELAY) || path.equals(SELF)));
    }

    void register(RoutesConfig r) {
        r.post("/v1/runtimes/pairing_codes", this::pair);
        r.post(EXCHANGE, this::exchange);
        // A plain GET on the relay (no WebSocket upgrade) would otherwise fall through to GET /v1/runtimes/{id}.
        r.get(RELAY, ctx -> {
            throw new PaddockException(ErrorCode.WEBSOCKET_UPGRADE_REQUIRED,
                    "this is the relay WebSocket of a paired tab: connect with a WebSocket upgrade and ?token=<runtime token>");
        });
        r.get(SELF, this::self); // before /v1/runtimes/{id}
        r.get("/v1/runtimes", ctx -> ctx.json(new Views.DataList<>(vm.runtimes(Auth.principal(ctx).tenantId()))));
        r.get("/v1/runtimes/{id}", ctx -> ctx.json(vm.runtime(Auth.principal(ctx).tenantId(), id(ctx))
                .orElseThrow(() -> PaddockException.notFound("runtime", id(ctx)))));
        r.delete("/v1/runtimes/{id}", ctx -> {
            vm.revoke(Auth.principal(ctx).tenantId(), id(ctx));
            ctx.status(204);
        });
        r.wsBeforeUpgrade(RELAY, ctx -> {
            try {
                vm.authenticate(relayToken(ctx.header("Authorization"), ctx.queryParam("token")));
            } catch (PaddockException e) {
                // Javalin does not write a result set before an upgrade: the refusal goes straight to the response
                ApiErrors.refuseUpgrade(ctx, json, e);
            }
        });
        r.ws(RELAY, ws -> {
            ws.onConnect(ctx -> {
                ctx.session.setMaxTextMessageSize(Frames.MAX_FRAME_CHARS);
                ctx.session.setIdleTimeout(Duration.ofMinutes(2));
                BrowserRuntime rt;
                try {
                    rt = vm.authenticate(relayToken(ctx.header("Authorization"), ctx.queryParam("token")));
                } catch (PaddockException e) {
                    ctx.closeSession(4401, "invalid runtime token");
                    return;
                }
                ctx.attribute(CONNECTION, vm.connect(rt, new SocketPeer(ctx)));
            });
            ws.onMessage(ctx -> {
                RelayConnection c = ctx.attribute(CONNECTION);
                if (c != null) c.onText(ctx.message());
            });
            ws.onBinaryMessage(ctx -> {
                RelayConnection c = ctx.attribute(CONNECTION);
                if (c != null) c.onText("binary frame");
            });
            ws.onClose(ctx -> {
                RelayConnection c = ctx.attribute(CONNECTION);
                if (c != null) c.onClosed();
            });
            ws.onError(ctx -> {
                RelayConnection c = ctx.attribute(CONNECTION);
                log.debug("relay socket error: {}", ctx.error() == null ? "?" : Text.clip(ctx.error().toString(), 200));
                if (c != null) c.onClosed();
            });
        });
    }

    private void pair(Context ctx) {
        RuntimeBodies.PairBody body = bodies.json(ctx, RuntimeBodies.PairBody.class);
        String kind = requireKind(body.kind());
        PairingCodes.Minted m = vm.pair(Auth.principal(ctx).tenantId(), kind);
        // a tab's code travels in the URL fragment: browsers never send it to a server or put it in a Referer;
        // a daemon's is typed into `paddock runtime pair` on its machine
        boolean tab = kind.equals(BrowserRuntime.KIND);
        ctx.status(201).json(new RuntimeBodies.PairingCode(m.code(), kind, m.expiresAt(), tab ? "/sandbox-tab#code=" + m.code() : null,
                tab ? null : "paddock runtime pair " + m.code() + " --server " + serverUrl(ctx)));
    }

    private void exchange(Context ctx) {
        RuntimeBodies.ExchangeBody body = bodies.json(ctx, RuntimeBodies.ExchangeBody.class);
        String kind = requireKind(body.kind());
        if (body.code() == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'code' is required");
        BrowserVm.Exchanged x = vm.exchange(body.code(), kind);
        ctx.header("Cache-Control", "no-store");
        ctx.status(201).json(new RuntimeBodies.Exchanged(x.runtimeId(), x.runtimeToken(), kind, RELAY, x.heartbeatSeconds()));
    }


    /** The runtime of the bearer token (no API key: the token is the credential); 401 invalid_runtime_token when it is unknown. */
    private void self(Context ctx) {
        String header = ctx.header("Authorization");
        String token = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).trim() : null;
        BrowserRuntime rt = vm.authenticate(token);
        ctx.header("Cache-Control", "no-store");
        ctx.json(rt.view());
    }

    private static String requireKind(String kind) {
        if (!BrowserRuntime.KIND.equals(kind) && !BrowserRuntime.DAEMON_KIND.equals(kind)) {
            throw new PaddockException(ErrorCode.INVALID_KIND,
                    "field 'kind' must be \"" + BrowserRuntime.KIND + "\" or \"" + BrowserRuntime.DAEMON_KIND + "\"");
        }
        return kind;
    }

    /** The server's base URL as the caller reached it, for the command a daemon's machine runs. */
    private static String serverUrl(Context ctx) {
        String url = ctx.fullUrl();
        int path = url.indexOf("/v1/");
        return path < 0 ? url : url.substring(0, path);
    }

    /**
     * The runtime token of a relay upgrade: a paired daemon sends it as {@code Authorization: Bearer} (kept out of
     * URLs), a browser tab in the query string (browsers cannot set WebSocket headers).
     */
    private static String relayToken(String authorization, String query) {
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) return authorization.substring(7).trim();
        return query;
    }

    private static String id(Context ctx) {
        return Params.pathId(ctx, "id", "rt", "runtime id");
    }

    /** Sends frames one at a time (Jetty allows one outstanding text write per session). */
    private record SocketPeer(WsContext ctx) implements RelayPeer {
        @Override
        public void send(String frame) throws Exception {
            synchronized (this) {
                if (!ctx.session.isOpen()) throw new PaddockException(ErrorCode.SOCKET_CLOSED, "socket closed");
                Callback.Completable done = new Callback.Completable();
                ctx.session.sendText(frame, done);
                done.get();
            }
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
