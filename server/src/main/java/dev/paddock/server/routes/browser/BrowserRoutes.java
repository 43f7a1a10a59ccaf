package dev.paddock.server.routes.browser;

import dev.paddock.browser.BrowserService;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import dev.paddock.browser.Screencast;
import dev.paddock.server.http.Sse;
import java.io.IOException;
import java.io.OutputStream;
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
public final class BrowserRoutes {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final BrowserService browser;
    private final Bodies bodies;

    public BrowserRoutes(BrowserService browser, Bodies bodies) {
        this.browser = browser;
        this.bodies = bodies;
    }

    /** Body of a script run: the ES module source and an optional timeout. */
    public record ScriptBody(String script, Long timeoutSeconds) {}

    public void register(RoutesConfig r) {
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
                OutputStream out = Sse.open(ctx, "screencast started");
                long lastWrite = System.nanoTime();
                while (true) {
                    ObjectNode f = frames.poll(200, TimeUnit.MILLISECONDS);
                    if (f != null) {
                        Sse.event(out, f.has("frame") ? "frame" : f.has("error") ? "error" : "page", JSON.writeValueAsBytes(f));
                        lastWrite = System.nanoTime();
                    } else if (cast.ended(Duration.ofMillis(1)) != null) {
                        Sse.event(out, "end", "{}".getBytes(StandardCharsets.UTF_8));
                        return;
                    } else if (System.nanoTime() - lastWrite > 1_000_000_000L) {
                        Sse.comment(out, "keepalive");
                        lastWrite = System.nanoTime();
                    }
                }
            } catch (IOException | java.io.UncheckedIOException e) {
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
