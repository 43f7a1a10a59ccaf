package dev.paddock.server.routes.agents;

import dev.paddock.core.PaddockException;
import io.javalin.http.Context;
import java.util.Locale;
import java.util.function.Supplier;

/** What Jetty's multipart parser said when it refused a body: the routes that take uploads read it the same way. */
final class MultipartFailures {
    private MultipartFailures() {}

    /**
     * Refuses a body whose declared length is over {@code limit} before the parser reads any of it: Jetty's parser
     * counts only what arrives, so it would take (and stage on disk) everything up to the limit first.
     */
    static void refuseDeclaredOver(Context ctx, long limit, Supplier<PaddockException> tooLarge) {
        if (ctx.req().getContentLengthLong() > limit) throw tooLarge.get();
    }

    /** Jetty refuses a part or a body over its limits with an exception that says so somewhere in its causes. */
    static boolean tooLarge(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (m.contains("max file size") || m.contains("exceeded") || m.contains("exceeds") || m.contains("too large")
                    || m.contains("413")) {
                return true;
            }
        }
        return false;
    }

    /** The innermost cause's message: the parser's own words on a broken body. */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return String.valueOf(t.getMessage());
    }
}
