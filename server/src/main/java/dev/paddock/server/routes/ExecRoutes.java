package dev.paddock.server.routes;

import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.ApiErrors;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.ErrorBody;
import dev.paddock.server.http.Sse;
import dev.paddock.server.wire.ExecBodies;
import dev.paddock.server.wire.ExecBody;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/sandboxes/{id}/exec}: runs a command and answers JSON, or with {@code Accept: text/event-stream}
 * streams its output as Server-Sent Events. A streaming client that goes away kills the command.
 */
public final class ExecRoutes {
    static final int OUTPUT_CAP = 1 << 20;
    private static final Logger log = LoggerFactory.getLogger(ExecRoutes.class);
    /** How often an idle stream sends a comment; a write is how a vanished client is noticed. */
    private static final Duration KEEPALIVE = Duration.ofSeconds(1);
    private static final Duration POLL = Duration.ofMillis(200);

    private final RuntimeHost host;
    private final Bodies bodies;
    private final ApiJson json;
    private final ApiErrors errors;

    public ExecRoutes(RuntimeHost host, Bodies bodies, ApiJson json, ApiErrors errors) {
        this.host = host;
        this.bodies = bodies;
        this.json = json;
        this.errors = errors;
    }

    public void register(RoutesConfig r) {
        r.post(SandboxRoutes.SANDBOX + "/exec", this::exec);
    }

    private void exec(Context ctx) throws IOException {
        ExecRequest request = ExecBodies.toRequest(bodies.json(ctx, ExecBody.class));
        String id = SandboxRoutes.id(ctx);
        if (wantsEvents(ctx)) {
            stream(ctx, id, request);
        } else {
            BoundedBuffer out = new BoundedBuffer(OUTPUT_CAP);
            BoundedBuffer err = new BoundedBuffer(OUTPUT_CAP);
            ExecResult r = host.run(Auth.principal(ctx), id, request, ExecOutput.into(out, err));
            ctx.json(new Views.ExecAnswer(r.exitCode(), r.signal(), r.timedOut(), r.oomKilled(),
                    r.duration() == null ? 0 : r.duration().toMillis(),
                    out.text(), err.text(), out.truncated(), err.truncated()));
        }
    }

    private void stream(Context ctx, String id, ExecRequest request) throws IOException {
        EventQueue events = new EventQueue();
        // Errors up to here (no sandbox, not running, bad request) still answer as ordinary JSON errors.
        try (ExecHandle handle = host.exec(Auth.principal(ctx), id, request, events)) {
            OutputStream out = Sse.open(ctx, "exec started");
            try {
                pump(handle, events, out);
            } catch (IOException | UncheckedIOException e) {
                log.debug("exec stream client of {} went away; killing the command", id);
                events.close();
                handle.kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                events.close();
                handle.kill();
            } catch (RuntimeException e) {
                events.close();
                handle.kill();
                sendError(ctx, out, e);
            }
        }
    }

    private void pump(ExecHandle handle, EventQueue events, OutputStream out) throws IOException, InterruptedException {
        long lastWrite = System.nanoTime();
        while (true) {
            EventQueue.Chunk c = events.poll(POLL);
            if (c != null) {
                send(out, c);
                lastWrite = System.nanoTime();
                continue;
            }
            ExecResult result = handle.await(Duration.ofMillis(1));
            if (result != null) {
                for (EventQueue.Chunk rest = events.pollNow(); rest != null; rest = events.pollNow()) send(out, rest);
                Sse.event(out, "exit", json.write(Views.ExecExit.of(result)));
                return;
            }
            if (System.nanoTime() - lastWrite >= KEEPALIVE.toNanos()) {
                Sse.comment(out, "keepalive");
                lastWrite = System.nanoTime();
            }
        }
    }

    private void send(OutputStream out, EventQueue.Chunk c) throws IOException {
        Sse.event(out, c.stream(), json.write(new Views.Chunk(Base64.getEncoder().encodeToString(c.data()))));
    }

    /** A failure after the stream started becomes an {@code error} event in the API's error shape. */
    private void sendError(Context ctx, OutputStream out, RuntimeException e) {
        PaddockException pe = errors.classify(e, ctx);
        try {
            Sse.event(out, "error", json.write(ErrorBody.of(pe)));
        } catch (IOException ignored) {
            // the client is gone as well
        }
    }

    private static boolean wantsEvents(Context ctx) {
        String accept = ctx.header("Accept");
        return accept != null && accept.toLowerCase().contains("text/event-stream");
    }
}
