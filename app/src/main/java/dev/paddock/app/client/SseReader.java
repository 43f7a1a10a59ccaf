package dev.paddock.app.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** Reads a {@code text/event-stream} body and hands each complete event to a consumer as it arrives. */
public final class SseReader {
    /** The most one event may hold: a server that sends more without an end is broken, and memory is the CLI's. */
    static final int MAX_EVENT_CHARS = 16 << 20;

    private SseReader() {}

    public static void read(InputStream body, Consumer<SseEvent> sink) throws IOException {
        read(body, sink, () -> { });
    }

    /** As {@link #read(InputStream, Consumer)}, calling {@code lineDone} after each complete line (keep-alives too). */
    public static void read(InputStream body, Consumer<SseEvent> sink, Runnable lineDone) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        String event = null;
        StringBuilder data = null;
        String line;
        while ((line = boundedLine(in)) != null) {
            lineDone.run();
            if (line.isEmpty()) {
                if (data != null) sink.accept(new SseEvent(event == null ? "message" : event, data.toString()));
                event = null;
                data = null;
                continue;
            }
            if (line.startsWith(":")) continue; // comment / keep-alive
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) value = value.substring(1);
            switch (field) {
                case "event" -> event = value;
                case "data" -> {
                    if (data == null) data = new StringBuilder(value);
                    else data.append('\n').append(value);
                    if (data.length() > MAX_EVENT_CHARS) throw new IOException("an event is over " + (MAX_EVENT_CHARS >> 20) + " MiB");
                }
                default -> { } // id and retry do not matter to a one-shot stream
            }
        }
        if (data != null) sink.accept(new SseEvent(event == null ? "message" : event, data.toString()));
    }

    /** The next line (ended by LF, CRLF or CR), or null at the end; a line over the event limit is an error. */
    private static String boundedLine(BufferedReader in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') return line.toString();
            if (c == '\r') {
                in.mark(1);
                if (in.read() != '\n') in.reset();
                return line.toString();
            }
            if (line.length() >= MAX_EVENT_CHARS) throw new IOException("a line of the stream is over " + (MAX_EVENT_CHARS >> 20) + " MiB");
            line.append((char) c);
        }
        return line.isEmpty() ? null : line.toString();
    }
}
