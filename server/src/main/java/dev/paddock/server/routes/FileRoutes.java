package dev.paddock.server.routes;

import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.Workspace;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.BoundedInputStream;
import dev.paddock.server.http.Params;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

/**
 * Files of a sandbox's {@code /workspace}. Bytes stream in both directions; paths are checked by the workspace,
 * which refuses anything that resolves outside it.
 */
public final class FileRoutes {
    private static final String FILES = SandboxRoutes.SANDBOX + "/files";
    private final RuntimeHost host;
    private final Bodies bodies;

    public FileRoutes(RuntimeHost host, Bodies bodies) {
        this.host = host;
        this.bodies = bodies;
    }

    public void register(RoutesConfig r) {
        TreeReadRoutes.register(r, FILES, Workspace.ROOT, this::workspace);
        r.put(FILES + "/content", this::write);
        r.post(FILES + "/mkdir", this::mkdir);
        r.delete(FILES, this::delete);
        r.put(FILES + "/archive", this::importArchive);
    }

    private Workspace workspace(Context ctx) {
        return host.workspace(Auth.principal(ctx), SandboxRoutes.id(ctx));
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
