package dev.paddock.app.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** Reads a {@code text/event-stream} body and hands each complete event to a consumer as it arrives. */
public final class SseReader {
    private SseReader() {}

    public static void read(InputStream body, Consumer<SseEvent> sink) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        String event = null;
        StringBuilder data = null;
        String line;
        while ((line = in.readLine()) != null) {
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
                }
                default -> { } // id and retry do not matter to a one-shot stream
            }
        }
        if (data != null) sink.accept(new SseEvent(event == null ? "message" : event, data.toString()));
    }
}
