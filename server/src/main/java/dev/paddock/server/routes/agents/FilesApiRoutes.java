package dev.paddock.server.routes.agents;

import dev.paddock.agents.FileService;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.server.PaddockServer;
import dev.paddock.server.http.Auth;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code /v1/files}: upload (multipart/form-data with one {@code file} part, parsed by Jetty: large parts go to a
 * temporary file, a file past {@code max_upload_size} is refused), list, metadata, content and delete.
 */
final class FilesApiRoutes {
    static final String FILE = "/v1/files/{file_id}";
    private final FileService files;
    private final long maxUploadBytes;

    FilesApiRoutes(FileService files, long maxUploadBytes) {
        this.files = files;
        this.maxUploadBytes = maxUploadBytes;
    }

    void register(RoutesConfig r) {
        r.post("/v1/files", this::upload);
        r.get("/v1/files", ctx -> AgentBodies.list(ctx, files.list(Auth.principal(ctx), AgentBodies.page(ctx), AgentBodies.many(ctx, "ids"))));
        r.get(FILE, ctx -> ctx.json(files.get(Auth.principal(ctx), ctx.pathParam("file_id")).toWire()));
        r.get(FILE + "/content", this::download);
        r.delete(FILE, ctx -> ctx.json(files.delete(Auth.principal(ctx), ctx.pathParam("file_id"))));
    }

    private void upload(Context ctx) {
        var principal = Auth.principal(ctx);
        if (!ctx.isMultipartFormData()) {
            throw new PaddockException(ErrorCode.INVALID_UPLOAD, "send the file as multipart/form-data with a part named 'file'");
        }
        MultipartFailures.refuseDeclaredOver(ctx, maxUploadBytes + PaddockServer.MULTIPART_OVERHEAD, this::tooLarge);
        List<UploadedFile> parts;
        try {
            parts = ctx.uploadedFiles("file");
        } catch (Exception e) { // Kotlin code: checked ServletException and IOException arrive undeclared
            if (MultipartFailures.tooLarge(e)) throw tooLarge();
            throw new PaddockException(ErrorCode.INVALID_UPLOAD, "the multipart body cannot be read (" + Text.clip(MultipartFailures.rootMessage(e), 120)
                    + "); send one part named 'file' with a filename");
        }
        if (parts.size() != 1) {
            throw new PaddockException(ErrorCode.INVALID_UPLOAD, parts.isEmpty() ? "the form has no part named 'file' (with a filename)"
                    : "send exactly one part named 'file', not " + parts.size());
        }
        UploadedFile part = parts.getFirst();
        try (InputStream in = part.content()) {
            ctx.json(files.upload(principal, part.filename(), part.contentType(), in).toWire());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private PaddockException tooLarge() {
        return new PaddockException(ErrorCode.FILE_UPLOAD_TOO_LARGE, "the file is larger than this server's max_upload_size of " + maxUploadBytes + " bytes");
    }

    private void download(Context ctx) {
        var principal = Auth.principal(ctx);
        var file = files.get(principal, ctx.pathParam("file_id"));
        InputStream in = files.content(principal, file.id());
        ctx.contentType(file.mimeType());
        ctx.header("Content-Length", String.valueOf(file.sizeBytes()));
        ctx.header("Content-Disposition", "attachment; filename*=UTF-8''" + URLEncoder.encode(file.filename(), StandardCharsets.UTF_8).replace("+", "%20"));
        ctx.result(in);
    }
}
