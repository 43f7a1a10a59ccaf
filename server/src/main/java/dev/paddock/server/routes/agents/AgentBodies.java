package dev.paddock.server.routes.agents;

import dev.paddock.agents.Cursors;
import dev.paddock.agents.ListResult;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.store.PageRequest;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Request bodies as plain JSON values, and the SDKs' list parameters. */
final class AgentBodies {
    private final Bodies bodies;

    AgentBodies(Bodies bodies) {
        this.bodies = bodies;
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> json(Context ctx) {
        return bodies.json(ctx, Map.class);
    }

    /** See {@link Bodies#none}. */
    void none(Context ctx) {
        bodies.none(ctx);
    }

    static PageRequest page(Context ctx) {
        Integer limit = null;
        if (ctx.queryParam("limit") != null) limit = (int) Params.longParam(ctx, "limit", 20, 1, PageRequest.MAX_LIMIT);
        return Cursors.request(ctx.queryParam("page"), limit, 20);
    }

    static void list(Context ctx, ListResult result) {
        ctx.json(result.toWire());
    }

    /** An array query parameter, sent as {@code name=a&name=b}, {@code name[]=a} or {@code name=a,b}. */
    static List<String> many(Context ctx, String name) {
        List<String> out = new ArrayList<>();
        for (String key : List.of(name, name + "[]")) {
            for (String v : ctx.queryParams(key)) {
                for (String part : v.split(",")) if (!part.isBlank()) out.add(part.strip());
            }
        }
        return out;
    }

    static Integer optionalInt(Context ctx, String name) {
        String raw = ctx.queryParam(name);
        if (raw == null || raw.isBlank()) return null;
        try {
            return Integer.parseInt(raw.strip());
        } catch (NumberFormatException e) {
            throw new PaddockException(ErrorCode.INVALID_PARAMETER, name + " must be an integer, got '" + Text.clip(raw, 30) + "'");
        }
    }
}
