package dev.paddock.core.agents;

import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Append-only session events. */
public interface SessionEventStore {
    SessionEvent append(String sessionId, String tenantId, String type, Map<String, Object> body);

    /**
     * Appends an event under an id from {@link #newId()} taken earlier: the id a live preview of the event announced
     * before the event itself was complete.
     */
    SessionEvent append(String id, String sessionId, String tenantId, String type, Map<String, Object> body);

    /**
     * Appends like {@link #append(String, String, String, String, Map)} (null {@code id}: a new one) if {@code ownerId}
     * still owns the session ({@link SessionOwners}); throws {@link SessionMovedException} otherwise. The check and
     * the append are one step: a claim of the session cannot fall between them.
     */
    SessionEvent appendAsOwner(String ownerId, String id, String sessionId, String tenantId, String type, Map<String, Object> body);

    /** A fresh event id, not yet used by any event. */
    String newId();

    /** Oldest first unless {@code newestFirst}. Cursors are event ids of this session. */
    Page<SessionEvent> list(String sessionId, PageRequest page, boolean newestFirst);

    /** Up to {@code limit} events appended after {@code seq}, oldest first (0: from the start). */
    List<SessionEvent> after(String sessionId, long seq, int limit);

    Optional<SessionEvent> find(String sessionId, String eventId);
}
