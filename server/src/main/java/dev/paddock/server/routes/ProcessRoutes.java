package dev.paddock.server.routes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.http.Streams;
import dev.paddock.server.wire.ExecBodies;
import dev.paddock.server.wire.ExecBody;
import dev.paddock.server.wire.SignalBody;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** Background processes: start, list, read logs, signal. */
public final class ProcessRoutes {
    private static final String PROCESSES = SandboxRoutes.SANDBOX + "/processes";
    private static final int MAX_LOG_CHUNK = 1 << 20;
    private static final Map<String, Integer> SIGNALS = Map.of(
            "HUP", 1, "INT", 2, "QUIT", 3, "KILL", 9, "USR1", 10, "USR2", 12, "TERM", 15, "CONT", 18, "STOP", 19);

    private final RuntimeHost host;
    private final Bodies bodies;

    public ProcessRoutes(RuntimeHost host, Bodies bodies) {
        this.host = host;
        this.bodies = bodies;
    }

    public void register(RoutesConfig r) {
        r.post(PROCESSES, this::start);
        r.get(PROCESSES, ctx -> ctx.json(new Views.DataList<>(host.processes(Auth.principal(ctx), SandboxRoutes.id(ctx)))));
        r.get(PROCESSES + "/{pid}/logs", this::logs);
        r.post(PROCESSES + "/{pid}/signal", this::signal);
    }

    private void start(Context ctx) {
        var request = ExecBodies.toRequest(bodies.json(ctx, ExecBody.class));
        ctx.status(201).json(host.startProcess(Auth.principal(ctx), SandboxRoutes.id(ctx), request));
    }

    private void logs(Context ctx) throws IOException {
        String id = SandboxRoutes.id(ctx);
        long pid = Params.pathLong(ctx, "pid", 1, Integer.MAX_VALUE);
        long offset = Params.longParam(ctx, "offset", 0, 0, Long.MAX_VALUE);
        int limit = (int) Params.longParam(ctx, "limit", 65536, 1, MAX_LOG_CHUNK);
        byte[] data = host.processLogs(Auth.principal(ctx), id, pid, offset, limit);
        OutputStream out = Streams.open(ctx, 200, "application/octet-stream");
        out.write(data);
        out.flush();
    }

    private void signal(Context ctx) {
        SignalBody body = bodies.json(ctx, SignalBody.class);
        String id = SandboxRoutes.id(ctx);
        long pid = Params.pathLong(ctx, "pid", 1, Integer.MAX_VALUE);
        host.signalProcess(Auth.principal(ctx), id, pid, signal(body.signal()));
        ctx.status(204);
    }

    static int signal(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'signal' is required: a name such as \"TERM\" or a number 1-64");
        }
        if (node.isIntegralNumber()) {
            if (!node.canConvertToLong()) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'signal' must be between 1 and 64");
            long n = node.asLong();
            if (n < 1 || n > 64) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'signal' must be between 1 and 64, got " + n);
            return (int) n;
        }
        if (node.isString()) {
            String name = node.asString().strip().toUpperCase(Locale.ROOT);
            if (name.startsWith("SIG")) name = name.substring(3);
            Integer n = SIGNALS.get(name);
            if (n != null) return n;
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'signal' must be one of " + String.join(", ", SIGNALS.keySet().stream().sorted().toList())
                    + " or a number, got '" + Text.clip(node.asString(), 20) + "'");
        }
        throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'signal' must be a name such as \"TERM\" or a number");
    }
}
