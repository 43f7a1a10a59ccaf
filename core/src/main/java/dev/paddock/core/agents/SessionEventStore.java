package dev.paddock.core.agents;

import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Append-only session events. */
public interface SessionEventStore {
    SessionEvent append(String sessionId, String tenantId, String type, Map<String, Object> body);

    /** Oldest first unless {@code newestFirst}. Cursors are event ids of this session. */
    Page<SessionEvent> list(String sessionId, PageRequest page, boolean newestFirst);

    /** Up to {@code limit} events appended after {@code seq}, oldest first (0: from the start). */
    List<SessionEvent> after(String sessionId, long seq, int limit);

    Optional<SessionEvent> find(String sessionId, String eventId);
}
