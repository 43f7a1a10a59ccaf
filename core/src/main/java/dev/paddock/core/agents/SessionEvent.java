package dev.paddock.core.agents;

import java.time.Instant;
import java.util.Map;

/**
 * One event of a session, as sent on the wire: {@code body} holds every field but {@code id}, {@code type} and
 * {@code processed_at}. {@code seq} orders events by append and is what streams resume from.
 */
public record SessionEvent(long seq, String id, String sessionId, String tenantId, String type, Instant processedAt, Map<String, Object> body) {
    public SessionEvent {
        body = body == null ? Map.of() : Map.copyOf(body);
    }
}
