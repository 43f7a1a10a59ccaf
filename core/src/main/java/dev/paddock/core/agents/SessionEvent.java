package dev.paddock.core.agents;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One event of a session, as sent on the wire: {@code body} holds every field but {@code id}, {@code type} and
 * {@code processed_at}. {@code seq} orders events by append and is what streams resume from.
 */
public record SessionEvent(long seq, String id, String sessionId, String tenantId, String type, Instant processedAt, Map<String, Object> body) {
    public SessionEvent {
        // JSON bodies hold nulls (absent values), which Map.copyOf refuses
        body = body == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(body));
    }

    /** True when this event is of type {@code t}. */
    public boolean is(SessionEventType t) {
        return t.wire().equals(type);
    }
}
