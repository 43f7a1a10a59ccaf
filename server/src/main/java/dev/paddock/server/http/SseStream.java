package dev.paddock.server.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One Server-Sent Events response, written straight to the connection: the streams of exec output, session events,
 * egress audit and the live view. Every event (or batch of events) is flushed as it is written. An idle stream sends a {@code keepalive}
 * comment every {@link #KEEPALIVE}, since a write is how a vanished client is noticed; any write to a client that
 * left throws {@link ClientGone}. A stream with a last event ends with {@link #end}; any other ends when its handler
 * returns (or is cut off when the handler fails, so the client never mistakes a broken stream for a finished one).
 */
public final class SseStream {
    /** How long a stream stays silent at most: a client that left is noticed within about this long. */
    public static final Duration KEEPALIVE = Duration.ofSeconds(1);
    private static final byte[] END_OF_EVENT = "\n\n".getBytes(StandardCharsets.UTF_8);

    /** The client is gone (its connection closed or broke): the producer behind the stream should stop. */
    public static final class ClientGone extends IOException {
        ClientGone(Exception cause) {
            super("the event stream's client went away", cause);
        }
    }

    private final OutputStream out;
    private long lastWrite = System.nanoTime();

    private SseStream(OutputStream out) {
        this.out = out;
    }

    /** Starts an event stream (no proxy buffering) and sends {@code opening} as a comment, so the client sees it open. */
    public static SseStream open(Context ctx, String opening) throws ClientGone {
        ctx.res().setHeader("X-Accel-Buffering", "no");
        SseStream stream;
        try {
            stream = new SseStream(Streams.open(ctx, 200, "text/event-stream"));
        } catch (UncheckedIOException e) {
            throw new ClientGone(e);
        }
        stream.comment(opening);
        return stream;
    }

    /** One event without an id. {@code data} is one line of JSON. */
    public void event(String name, byte[] data) throws ClientGone {
        event(null, name, data);
    }

    /** One event; with an {@code id} a client can resume after it ({@code Last-Event-ID}). {@code data} is one line of JSON. */
    public void event(String id, String name, byte[] data) throws ClientGone {
        events(List.of(new Event(id, name, data)));
    }

    /** One event of {@link #events}: {@code id} may be null, {@code data} is one line of JSON. */
    public record Event(String id, String name, byte[] data) {}

    /** Several events flushed once, so a replayed backlog goes out in one write rather than one per event. */
    public void events(List<Event> events) throws ClientGone {
        try {
            for (Event e : events) {
                out.write(((e.id() == null ? "" : "id: " + e.id() + "\n") + "event: " + e.name() + "\ndata: ").getBytes(StandardCharsets.UTF_8));
                out.write(e.data());
                out.write(END_OF_EVENT);
            }
        } catch (IOException | UncheckedIOException e) {
            throw new ClientGone(e);
        }
        flush();
    }

    /**
     * The next item of {@code queue}, waiting at most {@code wait} (and never past the next keepalive, which it sends
     * when due); null when none came.
     */
    public <T> T next(BlockingQueue<T> queue, Duration wait) throws ClientGone, InterruptedException {
        long untilKeepalive = KEEPALIVE.toNanos() - (System.nanoTime() - lastWrite);
        T item = queue.poll(Math.max(0, Math.min(wait.toNanos(), untilKeepalive)), TimeUnit.NANOSECONDS);
        if (item == null) keepAlive();
        return item;
    }

    /** Sends the keepalive comment when the stream has been silent for {@link #KEEPALIVE}. */
    public void keepAlive() throws ClientGone {
        if (System.nanoTime() - lastWrite >= KEEPALIVE.toNanos()) comment("keepalive");
    }

    /** The last event, then the end of the response. */
    public void end(String name, byte[] data) throws ClientGone {
        event(name, data);
        try {
            out.close();
        } catch (IOException | UncheckedIOException ignored) {
            // the event is out; a client that left right after it changes nothing
        }
    }

    private void comment(String text) throws ClientGone {
        try {
            out.write((": " + text + "\n\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException | UncheckedIOException e) {
            throw new ClientGone(e);
        }
        flush();
    }

    private void flush() throws ClientGone {
        try {
            out.flush();
        } catch (IOException | UncheckedIOException e) {
            throw new ClientGone(e);
        }
        lastWrite = System.nanoTime();
    }
}
