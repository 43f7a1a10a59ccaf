package dev.paddock.server.routes;

import dev.paddock.core.spi.Workspace;
import dev.paddock.server.http.Params;
import dev.paddock.server.http.Streams;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read side of a file tree of a sandbox ({@code /workspace} or {@code /mnt/session/outputs}): list, stat,
 * content and a tar archive under {@code prefix}. Paths are checked by the {@link Workspace}, which refuses anything
 * that resolves outside its root.
 */
final class TreeReadRoutes {
    private static final Logger log = LoggerFactory.getLogger(TreeReadRoutes.class);

    private TreeReadRoutes() {}

    static void register(RoutesConfig r, String prefix, String root, Function<Context, Workspace> tree) {
        r.get(prefix + "/list", ctx -> ctx.json(new Views.DataList<>(tree.apply(ctx).list(Params.optional(ctx, "path", root)))));
        r.get(prefix + "/stat", ctx -> ctx.json(tree.apply(ctx).stat(Params.optional(ctx, "path", root))));
        r.get(prefix + "/content", ctx -> Streams.copy(ctx, tree.apply(ctx).read(Params.required(ctx, "path")), "application/octet-stream"));
        r.get(prefix + "/archive", ctx -> exportArchive(ctx, tree.apply(ctx), Params.optional(ctx, "path", root)));
    }

    private static void exportArchive(Context ctx, Workspace tree, String path) throws IOException {
        tree.stat(path); // a bad or missing path answers 400/404 before any byte is sent
        OutputStream out = Streams.open(ctx, 200, "application/x-tar");
        try {
            tree.exportTar(path, out);
            out.flush();
        } catch (RuntimeException | IOException e) {
            if (!ctx.res().isCommitted() && e instanceof RuntimeException re) {
                // nothing sent yet (e.g. the path is a symlink that leaves the tree): answer the error as such
                ctx.res().reset();
                ctx.res().setHeader("X-Content-Type-Options", "nosniff");
                ctx.res().setHeader("Cache-Control", "no-store");
                throw re;
            }
            log.warn("archive download of {} broke off: {}", ctx.path(), e.toString());
            Streams.abort(ctx, e);
        }
    }
}
