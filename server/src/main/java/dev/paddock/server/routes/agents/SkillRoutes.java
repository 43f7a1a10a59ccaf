package dev.paddock.server.routes.agents;

import dev.paddock.agents.SkillService;
import dev.paddock.agents.skills.SkillFile;
import dev.paddock.agents.skills.SkillLimits;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Streams;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.javalin.http.util.MultipartUtil;
import jakarta.servlet.MultipartConfigElement;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code /v1/skills}: create a skill from uploaded files, retrieve, list and delete it, and its versions (create,
 * list, retrieve, delete, download as zip). Uploads are {@code multipart/form-data} read by Jetty into a private
 * staging directory: each file is a part named {@code files} (the TypeScript SDK sends {@code files[]}) whose filename
 * is its path in the skill, such as {@code pdf-forms/SKILL.md}; {@code display_name} is a plain field.
 */
final class SkillRoutes {
    private static final String SKILL = "/v1/skills/{skill_id}";
    private static final String VERSION = SKILL + "/versions/{version}";
    private static final List<String> FILE_PARTS = List.of("files", "files[]");
    /** Parts kept in memory up to this size; larger ones go to the staging directory. */
    private static final int IN_MEMORY_BYTES = 64 * 1024;
    /** Room for the multipart framing of the largest allowed upload. */
    private static final long FRAMING_BYTES = 1L << 20;

    private final SkillService skills;
    private final SkillLimits limits;

    SkillRoutes(SkillService skills) {
        this.skills = skills;
        this.limits = skills.limits();
    }

    void register(RoutesConfig r) {
        r.post("/v1/skills", ctx -> ctx.json(skills.create(Auth.principal(ctx), files(ctx), ctx.formParam("display_name"))));
        r.get("/v1/skills", ctx -> AgentBodies.list(ctx, skills.list(Auth.principal(ctx), AgentBodies.page(ctx), ctx.queryParam("source"))));
        r.get(SKILL, ctx -> ctx.json(skills.get(Auth.principal(ctx), ctx.pathParam("skill_id"))));
        r.delete(SKILL, ctx -> ctx.json(skills.delete(Auth.principal(ctx), ctx.pathParam("skill_id"))));
        r.post(SKILL + "/versions", ctx -> ctx.json(skills.createVersion(Auth.principal(ctx), ctx.pathParam("skill_id"), () -> files(ctx))));
        r.get(SKILL + "/versions", ctx -> AgentBodies.list(ctx, skills.versions(Auth.principal(ctx), ctx.pathParam("skill_id"), AgentBodies.page(ctx))));
        r.get(VERSION, ctx -> ctx.json(skills.getVersion(Auth.principal(ctx), ctx.pathParam("skill_id"), ctx.pathParam("version"))));
        r.delete(VERSION, ctx -> ctx.json(skills.deleteVersion(Auth.principal(ctx), ctx.pathParam("skill_id"), ctx.pathParam("version"))));
        r.get(VERSION + "/content", this::download);
    }

    private void download(Context ctx) throws Exception {
        SkillService.Download d = skills.content(Auth.principal(ctx), ctx.pathParam("skill_id"), ctx.pathParam("version"));
        ctx.header("Content-Disposition", "attachment; filename=\"" + d.name() + "-" + d.version() + ".zip\"");
        try (OutputStream out = Streams.open(ctx, 200, "application/zip")) {
            d.writer().accept(out);
        }
    }

    /** The uploaded files, read by Jetty's multipart parser within the skill limits. */
    private List<SkillFile> files(Context ctx) {
        String type = ctx.contentType();
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
            throw new PaddockException(ErrorCode.SKILL_UPLOAD_INVALID, "send the skill as multipart/form-data: one part named 'files' per file, "
                    + "its filename the file's path (my-skill/SKILL.md, my-skill/scripts/run.py); got content type '" + Text.clip(type, 60) + "'");
        }
        MultipartFailures.refuseDeclaredOver(ctx, limits.maxTotalBytes() + FRAMING_BYTES, this::tooLarge);
        ctx.req().setAttribute(MultipartUtil.MULTIPART_CONFIG_ATTRIBUTE, new MultipartConfigElement(skills.uploadStaging().toString(),
                limits.maxTotalBytes(), limits.maxTotalBytes() + FRAMING_BYTES, IN_MEMORY_BYTES));
        Map<String, List<UploadedFile>> parts;
        try {
            parts = ctx.uploadedFileMap();
        } catch (Exception e) { // Javalin passes Jetty's checked ServletException and IOException on undeclared
            throw unreadable(e);
        }
        List<SkillFile> out = new ArrayList<>();
        for (Map.Entry<String, List<UploadedFile>> part : parts.entrySet()) {
            if (!FILE_PARTS.contains(part.getKey())) {
                throw new PaddockException(ErrorCode.SKILL_UPLOAD_INVALID, "unexpected file part '" + Text.clip(part.getKey(), 60)
                        + "'; send each file as a part named 'files'");
            }
            for (UploadedFile f : part.getValue()) out.add(new SkillFile(f.filename(), f.size(), f::content));
        }
        return out;
    }

    private PaddockException tooLarge() {
        return new PaddockException(ErrorCode.SKILL_TOO_LARGE, "a skill's files may take at most " + limits.maxTotalBytes() + " bytes together");
    }

    /** Jetty refuses an upload over its limits or a broken body; either way the client learns which. */
    private PaddockException unreadable(Exception e) {
        if (MultipartFailures.tooLarge(e)) return tooLarge();
        return new PaddockException(ErrorCode.SKILL_UPLOAD_INVALID, "the multipart/form-data body could not be read: " + Text.clip(String.valueOf(e.getMessage()), 160));
    }
}
