package dev.paddock.server.routes;

import dev.paddock.core.spi.Workspace;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Params;
import dev.paddock.server.http.Streams;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sandbox's {@code /mnt/session/outputs}, read-only: what the sandbox left for the caller, also after it ended.
 * Paths are as seen inside the sandbox (under /mnt/session/outputs, or relative to it).
 */
public final class OutputRoutes {
    private static final Logger log = LoggerFactory.getLogger(OutputRoutes.class);
    private static final String OUTPUTS = SandboxRoutes.SANDBOX + "/outputs";
    private final RuntimeHost host;

    public OutputRoutes(RuntimeHost host) {
        this.host = host;
    }

    public void register(RoutesConfig r) {
        r.get(OUTPUTS + "/list", ctx -> ctx.json(new Views.DataList<>(outputs(ctx).list(Params.optional(ctx, "path", Workspace.OUTPUTS)))));
        r.get(OUTPUTS + "/stat", ctx -> ctx.json(outputs(ctx).stat(Params.optional(ctx, "path", Workspace.OUTPUTS))));
        r.get(OUTPUTS + "/content", this::read);
        r.get(OUTPUTS + "/archive", this::exportArchive);
    }

    private Workspace outputs(Context ctx) {
        return host.outputs(Auth.principal(ctx), SandboxRoutes.id(ctx));
    }

    private void read(Context ctx) throws IOException {
        String path = Params.required(ctx, "path");
        Streams.copy(ctx, outputs(ctx).read(path), "application/octet-stream");
    }

    private void exportArchive(Context ctx) throws IOException {
        String path = Params.optional(ctx, "path", Workspace.OUTPUTS);
        Workspace ws = outputs(ctx);
        ws.stat(path); // a bad or missing path answers 400/404 before any byte is sent
        OutputStream out = Streams.open(ctx, 200, "application/x-tar");
        try {
            ws.exportTar(path, out);
            out.flush();
        } catch (RuntimeException | IOException e) {
            log.warn("outputs archive download of {} broke off: {}", ctx.path(), e.toString());
            Streams.abort(ctx, e);
        }
    }
}
