package dev.paddock.server.routes.browser;

import dev.paddock.browser.BrowserService;
import dev.paddock.server.RouteContext;
import dev.paddock.server.RouteModule;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import dev.paddock.browser.Screencast;
import dev.paddock.server.http.SseStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.JsonNode;

/** Script mode ({@code POST /v1/sandboxes/{id}/browser/script}), step mode ({@code …/browser/actions}) and the live view ({@code …/browser/screencast}). */
public final class BrowserRoutes implements RouteModule {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** How often the live view looks whether the cast has ended while no frame comes. */
    private static final Duration POLL = Duration.ofMillis(200);
    private final BrowserService browser;
    private Bodies bodies; // the server's, given at registration

    /** {@code browser} is the one the MCP endpoint uses too, so both share its per-sandbox locks. */
    public BrowserRoutes(BrowserService browser) {
        this.browser = browser;
    }

    /** Body of a script run: the ES module source and an optional timeout. */
    public record ScriptBody(String script, Long timeoutSeconds) {}

    @Override
    public void register(RouteContext context) {
        RoutesConfig r = context.routes();
        bodies = context.bodies();
        r.post("/v1/sandboxes/{id}/browser/script", this::script);
        r.post("/v1/sandboxes/{id}/browser/actions", this::action);
        r.get("/v1/sandboxes/{id}/browser/screencast", this::screencast);
    }

    private void script(Context ctx) {
        ScriptBody b = bodies.json(ctx, ScriptBody.class);
        Duration t = b.timeoutSeconds() == null ? null : Duration.ofSeconds(b.timeoutSeconds());
        ctx.json(browser.runScript(Auth.principal(ctx), id(ctx), b.script(), t));
    }

    private void action(Context ctx) {
        ctx.json(browser.act(Auth.principal(ctx), id(ctx), bodies.json(ctx, JsonNode.class)));
    }

    /**
     * The live view as Server-Sent Events: {@code frame} events ({frame: base64 JPEG, url, title}), {@code page}
     * events when only url or title changed, {@code end} when the cast ran its length. A client that goes away ends it.
     */
    private void screencast(Context ctx) throws IOException, InterruptedException {
        int quality = (int) Params.longParam(ctx, "quality", 60, 10, 90);
        long seconds = Params.longParam(ctx, "seconds", BrowserService.SCREENCAST_LENGTH.toSeconds(), 1, BrowserService.SCREENCAST_LENGTH.toSeconds());
        BlockingQueue<ObjectNode> frames = new ArrayBlockingQueue<>(4);
        AtomicBoolean gone = new AtomicBoolean();
        // errors up to here (no sandbox, not a browser sandbox, bad parameters) still answer as ordinary JSON errors
        try (Screencast cast = browser.screencast(Auth.principal(ctx), id(ctx), quality, Duration.ofSeconds(seconds), f -> {
            try {
                while (!gone.get() && !frames.offer(f, 100, TimeUnit.MILLISECONDS)) { } // a slow viewer slows the cast
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        })) {
            try {
                SseStream out = SseStream.open(ctx, "screencast started");
                while (true) {
                    ObjectNode f = out.next(frames, POLL);
                    if (f != null) {
                        out.event(f.has("frame") ? "frame" : f.has("error") ? "error" : "page", JSON.writeValueAsBytes(f));
                    } else if (cast.ended(Duration.ofMillis(1)) != null) {
                        out.end("end", "{}".getBytes(StandardCharsets.UTF_8));
                        return;
                    }
                }
            } catch (SseStream.ClientGone e) {
                // the viewer went away: closing the cast ends the relay and the agent's screencast
            } finally {
                gone.set(true);
            }
        }
    }

    private static String id(Context ctx) {
        return Params.pathId(ctx, "id", "sbx", "sandbox id");
    }
}
