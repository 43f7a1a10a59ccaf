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
import dev.paddock.server.http.SseStream;
import dev.paddock.server.wire.ExecBodies;
import dev.paddock.server.wire.ExecBody;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
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
            Thread.ofVirtual().name("exec-exit-" + id).start(() -> awaitExit(handle, events));
            try {
                SseStream out = SseStream.open(ctx, "exec started");
                try {
                    pump(events, out);
                } catch (RuntimeException e) {
                    events.close();
                    handle.kill();
                    sendError(ctx, out, e);
                }
            } catch (SseStream.ClientGone e) {
                log.debug("exec stream client of {} went away; killing the command", id);
                events.close();
                handle.kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                events.close();
                handle.kill();
            }
        }
    }

    /** Puts how the command ended behind its output, so the stream waits on one queue only. */
    private static void awaitExit(ExecHandle handle, EventQueue events) {
        try {
            events.exited(handle.await());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            events.failed(e);
        }
    }

    private void pump(EventQueue events, SseStream out) throws SseStream.ClientGone, InterruptedException {
        while (true) {
            switch (out.next(events.items(), SseStream.KEEPALIVE)) {
                case null -> { }
                case EventQueue.Chunk c -> out.event(c.stream(), json.write(new Views.Chunk(Base64.getEncoder().encodeToString(c.data()))));
                case EventQueue.Exit x -> {
                    out.end("exit", json.write(Views.ExecExit.of(x.result())));
                    return;
                }
                case EventQueue.Failed f -> throw f.error();
            }
        }
    }

    /** A failure after the stream started becomes an {@code error} event in the API's error shape. */
    private void sendError(Context ctx, SseStream out, RuntimeException e) {
        PaddockException pe = errors.classify(e, ctx);
        try {
            out.event("error", json.write(ErrorBody.of(pe)));
        } catch (SseStream.ClientGone ignored) {
            // the client is gone as well
        }
    }

    private static boolean wantsEvents(Context ctx) {
        String accept = ctx.header("Accept");
        return accept != null && accept.toLowerCase().contains("text/event-stream");
    }
}
