package dev.paddock.agents;

import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventStore;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Session events: appended to the store, then handed to every live subscriber of the session. A subscriber that
 * falls too far behind is dropped (its stream ends and the client resumes from its last event id), so one slow
 * reader cannot hold memory without bound.
 */
public final class EventLog {
    static final int SUBSCRIBER_BACKLOG = 10_000;

    private final SessionEventStore store;
    private final Map<String, Set<Subscription>> subscribers = new ConcurrentHashMap<>();
    /** Appends of one session share a stripe, so subscribers get its events in append order (a stream drops older ones). */
    private final ReentrantLock[] appendLocks = new ReentrantLock[64];

    public EventLog(SessionEventStore store) {
        this.store = store;
        for (int i = 0; i < appendLocks.length; i++) appendLocks[i] = new ReentrantLock();
    }

    /** A live feed of one session's events; close it when done. */
    public final class Subscription implements AutoCloseable {
        private final String sessionId;
        private final BlockingQueue<SessionEvent> queue = new LinkedBlockingQueue<>(SUBSCRIBER_BACKLOG);
        private volatile boolean overflowed;
        private volatile boolean ended;

        private Subscription(String sessionId) {
            this.sessionId = sessionId;
        }

        public BlockingQueue<SessionEvent> queue() { return queue; }

        /** True once the subscriber missed events or the session was deleted: the stream must end. */
        public boolean ended() { return overflowed || ended; }

        void offer(SessionEvent e) {
            if (!queue.offer(e)) overflowed = true;
        }

        void end() {
            ended = true;
        }

        @Override
        public void close() {
            Set<Subscription> set = subscribers.get(sessionId);
            if (set != null) set.remove(this);
        }
    }

    public SessionEvent append(String sessionId, String tenantId, SessionEventType type, Map<String, Object> body) {
        ReentrantLock lock = appendLocks[Math.floorMod(sessionId.hashCode(), appendLocks.length)];
        lock.lock();
        try {
            SessionEvent e = store.append(sessionId, tenantId, type.wire(), body);
            Set<Subscription> set = subscribers.get(sessionId);
            if (set != null) set.forEach(s -> s.offer(e));
            return e;
        } finally {
            lock.unlock();
        }
    }

    public Subscription subscribe(String sessionId) {
        Subscription s = new Subscription(sessionId);
        subscribers.computeIfAbsent(sessionId, k -> ConcurrentHashMap.newKeySet()).add(s);
        return s;
    }

    /** Ends every stream of a deleted session. */
    public void endAll(String sessionId) {
        Set<Subscription> set = subscribers.remove(sessionId);
        if (set != null) set.forEach(Subscription::end);
    }

    public Page<SessionEvent> list(String sessionId, PageRequest page, boolean newestFirst) {
        return store.list(sessionId, page, newestFirst);
    }

    public List<SessionEvent> after(String sessionId, long seq, int limit) {
        return store.after(sessionId, seq, limit);
    }

    public Optional<SessionEvent> find(String sessionId, String eventId) {
        return store.find(sessionId, eventId);
    }

    /** The wire object: {@code id}, {@code type}, {@code processed_at} and the event's own fields. */
    public static Map<String, Object> wire(SessionEvent e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", e.id());
        m.put("type", e.type());
        m.put("processed_at", Times.iso(e.processedAt()));
        m.putAll(e.body());
        return m;
    }
}
