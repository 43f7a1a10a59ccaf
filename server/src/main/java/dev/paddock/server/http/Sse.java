package dev.paddock.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Server-Sent Events written straight to the connection: the streams of exec output, egress audit and the live view. */
public final class Sse {
    private Sse() {}

    /** Starts an event stream (no proxy buffering) and sends {@code opening} as a comment, so the client sees it open. */
    public static OutputStream open(Context ctx, String opening) throws IOException {
        ctx.res().setHeader("X-Accel-Buffering", "no");
        OutputStream out = Streams.open(ctx, 200, "text/event-stream");
        comment(out, opening);
        return out;
    }

    /** One event, flushed. {@code data} is one line of JSON. */
    public static void event(OutputStream out, String name, byte[] data) throws IOException {
        out.write(("event: " + name + "\ndata: ").getBytes(StandardCharsets.UTF_8));
        out.write(data);
        out.write("\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** A comment, flushed: what an idle stream sends now and then, since a write is how a vanished client is noticed. */
    public static void comment(OutputStream out, String text) throws IOException {
        out.write((": " + text + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
