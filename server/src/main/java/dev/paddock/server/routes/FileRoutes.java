package dev.paddock.server.routes;

import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.Workspace;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.BoundedInputStream;
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
 * Files of a sandbox's {@code /workspace}. Bytes stream in both directions; paths are checked by the workspace,
 * which refuses anything that resolves outside it.
 */
public final class FileRoutes {
    private static final Logger log = LoggerFactory.getLogger(FileRoutes.class);
    private static final String FILES = SandboxRoutes.SANDBOX + "/files";
    private final RuntimeHost host;
    private final Bodies bodies;

    public FileRoutes(RuntimeHost host, Bodies bodies) {
        this.host = host;
        this.bodies = bodies;
    }

    public void register(RoutesConfig r) {
        r.get(FILES + "/content", this::read);
        r.put(FILES + "/content", this::write);
        r.get(FILES + "/stat", ctx -> ctx.json(workspace(ctx).stat(Params.optional(ctx, "path", Workspace.ROOT))));
        r.get(FILES + "/list", ctx -> ctx.json(new Views.DataList<>(workspace(ctx).list(Params.optional(ctx, "path", Workspace.ROOT)))));
        r.post(FILES + "/mkdir", this::mkdir);
        r.delete(FILES, this::delete);
        r.get(FILES + "/archive", this::exportArchive);
        r.put(FILES + "/archive", this::importArchive);
    }

    private Workspace workspace(Context ctx) {
        return host.workspace(Auth.principal(ctx), SandboxRoutes.id(ctx));
    }

    private void read(Context ctx) throws IOException {
        String path = Params.required(ctx, "path");
        Streams.copy(ctx, workspace(ctx).read(path), "application/octet-stream");
    }

    private void write(Context ctx) {
        String path = Params.required(ctx, "path");
        Workspace ws = workspace(ctx);
        BoundedInputStream body = bodies.upload(ctx, "file content");
        FileEntry entry;
        try {
            entry = ws.write(path, body);
        } catch (RuntimeException e) {
            if (body.exceeded()) throw body.tooLarge();
            throw e;
        }
        ctx.json(entry);
    }

    private void mkdir(Context ctx) {
        String path = Params.required(ctx, "path");
        Workspace ws = workspace(ctx);
        ws.mkdir(path);
        ctx.json(ws.stat(path));
    }

    private void delete(Context ctx) {
        String path = Params.required(ctx, "path");
        boolean recursive = Params.bool(ctx, "recursive", false);
        workspace(ctx).delete(path, recursive);
        ctx.status(204);
    }

    private void exportArchive(Context ctx) throws IOException {
        String path = Params.optional(ctx, "path", Workspace.ROOT);
        Workspace ws = workspace(ctx);
        ws.stat(path); // a bad or missing path answers 400/404 before any byte is sent
        OutputStream out = Streams.open(ctx, 200, "application/x-tar");
        try {
            ws.exportTar(path, out);
            out.flush();
        } catch (RuntimeException | IOException e) {
            log.warn("archive download of {} broke off: {}", ctx.path(), e.toString());
            Streams.abort(ctx, e);
        }
    }

    private void importArchive(Context ctx) {
        String path = Params.optional(ctx, "path", Workspace.ROOT);
        Workspace ws = workspace(ctx);
        BoundedInputStream body = bodies.upload(ctx, "tar archive");
        try {
            ws.importTar(path, body);
        } catch (RuntimeException e) {
            if (body.exceeded()) throw body.tooLarge();
            throw e;
        }
        ctx.status(204);
    }
}
