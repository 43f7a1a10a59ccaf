package dev.paddock.agents.worker;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Follows a session's event list with the list's own page cursor: each read starts at the last page it reached,
 * so it costs the events that are new since the last read plus at most one page, never the whole log. Events of
 * that page already handed out are skipped by id.
 */
final class EventCursor {
    /** One page of the session's events, oldest first: {@code {data: [...], next_page}}; {@code cursor} null is the first. */
    interface Pages {
        JsonNode page(String cursor);
    }

    private final Pages pages;
    private final Set<String> seenOnPage = new HashSet<>();
    private String cursor;

    EventCursor(Pages pages) {
        this.pages = pages;
    }

    /** The events appended since the last call (all of them on the first), oldest first. */
    List<JsonNode> next() {
        List<JsonNode> out = new ArrayList<>();
        while (true) {
            JsonNode page = pages.page(cursor);
            for (JsonNode e : page.get("data")) {
                if (seenOnPage.add(e.get("id").asString())) out.add(e);
            }
            if (!page.path("next_page").isString()) return out;
            cursor = page.get("next_page").asString();
            seenOnPage.clear();
        }
    }
}
