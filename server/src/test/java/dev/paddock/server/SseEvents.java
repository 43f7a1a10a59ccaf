package dev.paddock.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** Parses a Server-Sent Events body into events (comments dropped). */
final class SseEvents {
    record Event(String name, String data) {}

    private SseEvents() {}

    static List<Event> parse(String body) {
        List<Event> out = new ArrayList<>();
        for (String block : body.split("\n\n")) {
            String name = "message";
            StringBuilder data = new StringBuilder();
            boolean any = false;
            for (String line : block.split("\n")) {
                if (line.startsWith("event: ")) { name = line.substring(7); any = true; }
                else if (line.startsWith("data: ")) { data.append(line.substring(6)); any = true; }
            }
            if (any) out.add(new Event(name, data.toString()));
        }
        return out;
    }

    /** The concatenated, base64-decoded chunks of one stream. */
    static String decoded(List<Event> events, String stream) {
        StringBuilder sb = new StringBuilder();
        for (Event e : events) {
            if (!e.name().equals(stream)) continue;
            String b64 = Api.JSON.readTree(e.data()).path("data_base64").asString();
            sb.append(new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8));
        }
        return sb.toString();
    }
}
