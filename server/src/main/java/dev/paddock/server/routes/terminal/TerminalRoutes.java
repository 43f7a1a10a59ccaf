package dev.paddock.server.routes.terminal;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.TerminalRequest;
import dev.paddock.host.terminal.TerminalSession;
import dev.paddock.host.terminal.TerminalSessions;
import dev.paddock.host.terminal.TerminalSessions.AttachToken;
import dev.paddock.server.http.ApiErrors;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import io.javalin.websocket.WsMessageContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Terminals: open one (API key), list, get, end, mint attach tokens, and the WebSocket a client attaches with
 * ({@code …/pty/{pty_id}/attach?token=ptt_…}: a single-use token, since browsers cannot set headers on a
 * WebSocket and an API key must not travel in a URL). On the socket, binary frames are the terminal's bytes both
 * ways; text frames are JSON control messages (see docs/API.md, "Terminals").
 */
public final class TerminalRoutes {
    static final String TERMINALS = "/v1/sandboxes/{id}/pty";
    private static final String TERMINAL = TERMINALS + "/{pty_id}";
    private static final String ATTACH = TERMINAL + "/attach";
    private static final Pattern ATTACH_PATH = Pattern.compile("/v1/sandboxes/[^/]+/pty/[^/]+/attach/?");
    private static final String SESSION = "paddock.terminal";
    private static final String VIEWER = "paddock.terminal-viewer";
    private static final int MAX_INPUT_FRAME = 64 * 1024;

    private final TerminalSessions terminals;
    private final Bodies bodies;
    private final ApiJson json;

    public TerminalRoutes(TerminalSessions terminals, Bodies bodies, ApiJson json) {
        this.terminals = terminals;
        this.bodies = bodies;
        this.json = json;
    }

    /** The attach WebSocket carries its own credential (the attach token). */
    public static boolean isPublic(String method, String path) {
        return "GET".equals(method) && ATTACH_PATH.matcher(path).matches();
    }

    /** A terminal as the API shows it, with a fresh attach token where one was just minted. */
    public record TerminalView(String id, String sandboxId, List<String> command, int rows, int cols, String status, Integer exitCode,
                               boolean attached, Instant createdAt, long graceSeconds, String attachToken, Instant attachTokenExpiresAt,
                               String attachUrl) {
        static TerminalView of(TerminalSession.View v, long graceSeconds, AttachToken token) {
            return new TerminalView(v.id(), v.sandboxId(), v.argv(), v.rows(), v.cols(), v.status().name().toLowerCase(Locale.ROOT), v.exitCode(),
                    v.attached(), v.createdAt(), graceSeconds, token == null ? null : token.token(), token == null ? null : token.expiresAt(),
                    token == null ? null : attachPath(v.sandboxId(), v.id()) + "?token=" + token.token());
        }
    }

    public record TokenView(String attachToken, Instant expiresAt, String attachUrl) {}

    static String attachPath(String sandboxId, String ptyId) {
        return "/v1/sandboxes/" + sandboxId + "/pty/" + ptyId + "/attach";
    }

    public void register(RoutesConfig r) {
        r.post(TERMINALS, this::open);
        r.get(TERMINALS, ctx -> ctx.json(new Views.DataList<>(terminals.list(Auth.principal(ctx), sandboxId(ctx)).stream()
                .map(s -> view(s, null)).toList())));
        r.get(TERMINAL, ctx -> ctx.json(view(terminals.get(Auth.principal(ctx), sandboxId(ctx), ptyId(ctx)), null)));
        r.delete(TERMINAL, ctx -> {
            terminals.kill(Auth.principal(ctx), sandboxId(ctx), ptyId(ctx));
            ctx.status(204);
        });
        r.post(TERMINAL + "/attach_tokens", ctx -> {
            String sbx = sandboxId(ctx), pty = ptyId(ctx);
            bodies.none(ctx);
            AttachToken t = terminals.issueToken(Auth.principal(ctx), sbx, pty);
            ctx.status(201).json(new TokenView(t.token(), t.expiresAt(), attachPath(sbx, pty) + "?token=" + t.token()));
        });
        r.get(ATTACH, ctx -> {
            throw new PaddockException(ErrorCode.WEBSOCKET_UPGRADE_REQUIRED,
                    "this is a terminal's WebSocket: connect with a WebSocket upgrade and ?token=<attach token from POST " + TERMINALS + ">");
        });
        r.wsBeforeUpgrade(ATTACH, ctx -> {
            try {
                ctx.attribute(SESSION, terminals.redeem(ctx.pathParam("id"), ctx.pathParam("pty_id"), ctx.queryParam("token")));
            } catch (PaddockException e) {
                ApiErrors.refuseUpgrade(ctx, json, e);
            }
        });
        r.ws(ATTACH, ws -> {
            ws.onConnect(this::attach);
            ws.onBinaryMessage(ctx -> input(ctx, ctx.data()));
            ws.onMessage(this::control);
            ws.onClose(this::detach);
            ws.onError(this::detach);
        });
    }

    private void open(Context ctx) {
        JsonNode body = bodies.jsonOrNull(ctx, JsonNode.class);
        TerminalRequest request = TerminalBodies.request(body);
        String sbx = sandboxId(ctx);
        TerminalSession s = terminals.open(Auth.principal(ctx), sbx, request);
        ctx.status(201).json(view(s, terminals.issueToken(Auth.principal(ctx), sbx, s.id())));
    }

    private TerminalView view(TerminalSession s, AttachToken token) {
        return TerminalView.of(s.view(), terminals.grace().toSeconds(), token);
    }

    private void attach(WsContext ctx) {
        TerminalSession s = ctx.attribute(SESSION);
        if (s == null) {
            ctx.closeSession(4401, "invalid attach token");
            return;
        }
        ctx.session.setIdleTimeout(Duration.ofMinutes(30));
        ctx.session.setMaxTextMessageSize(MAX_INPUT_FRAME);
        ctx.session.setMaxBinaryMessageSize(MAX_INPUT_FRAME);
        SocketViewer v = new SocketViewer(ctx, json);
        ctx.attribute(VIEWER, v);
        v.control(Map.of("type", "attached", "id", s.id(), "rows", s.view().rows(), "cols", s.view().cols()));
        terminals.attach(s, v);
    }

    private void input(WsContext ctx, ByteBuffer data) {
        TerminalSession s = ctx.attribute(SESSION);
        if (s == null) return;
        byte[] copy = new byte[data.remaining()];
        data.get(copy);
        try {
            terminals.input(s, copy);
        } catch (PaddockException | IOException e) {
            report(ctx, e);
        }
    }

    /** Text frames: {"type":"input","data":"…"} or {"type":"resize","rows":R,"cols":C}. */
    private void control(WsMessageContext ctx) {
        TerminalSession s = ctx.attribute(SESSION);
        if (s == null) return;
        try {
            TerminalBodies.Control c = TerminalBodies.control(json, ctx.message());
            switch (c) {
                case TerminalBodies.Control.Input in -> terminals.input(s, in.data().getBytes(StandardCharsets.UTF_8));
                case TerminalBodies.Control.Resize rs -> s.resize(rs.rows(), rs.cols());
            }
        } catch (PaddockException | IOException e) {
            report(ctx, e);
        }
    }

    private void report(WsContext ctx, Exception e) {
        SocketViewer v = ctx.attribute(VIEWER);
        if (v == null) return;
        String code = e instanceof PaddockException p ? p.errorCode().wire() : ErrorCode.SANDBOX_UNREACHABLE.wire();
        v.control(Map.of("type", "error", "code", code, "message", Text.clip(String.valueOf(e.getMessage()), 300)));
    }

    private void detach(WsContext ctx) {
        TerminalSession s = ctx.attribute(SESSION);
        SocketViewer v = ctx.attribute(VIEWER);
        if (s != null && v != null) terminals.detach(s, v);
    }


    private static String sandboxId(Context ctx) {
        return Params.pathId(ctx, "id", "sbx", "sandbox id");
    }

    private static String ptyId(Context ctx) {
        return Params.pathId(ctx, "pty_id", "pty", "terminal id");
    }
}
