package dev.paddock.agents;

import dev.paddock.agents.loop.History;
import dev.paddock.core.agents.SessionEvent;
import java.lang.ref.SoftReference;
import java.util.List;
import java.util.function.Function;

/**
 * One session's {@link History}, kept for the life of its loop and advanced by the events appended since it last
 * looked (the log's {@code seq} is its cursor), so a read costs what is new, not the whole log. A fresh projection
 * (at start, or after a server restart) reads the log once from the beginning. The agent loop and the intake of
 * client events share it; every read holds its lock.
 */
final class HistoryProjection {
    private static final int BATCH = 500;

    private final EventLog events;
    private final String sessionId;
    /** Soft, so idle sessions' conversations give way under memory pressure; the next read then reads the log again. */
    private SoftReference<History> held = new SoftReference<>(new History());

    HistoryProjection(EventLog events, String sessionId) {
        this.events = events;
        this.sessionId = sessionId;
    }

    /** Brings the history up to the log's last event, then answers {@code query} from it. */
    synchronized <T> T read(Function<History, T> query) {
        History history = held.get();
        if (history == null) {
            history = new History();
            held = new SoftReference<>(history);
        }
        while (true) {
            List<SessionEvent> batch = events.after(sessionId, history.seq(), BATCH);
            for (SessionEvent e : batch) history.add(e);
            if (batch.size() < BATCH) break;
        }
        return query.apply(history);
    }
}
