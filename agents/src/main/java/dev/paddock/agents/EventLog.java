package dev.paddock.agents;

import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventStore;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Session events: appended to the store, then handed to every live subscriber of the session. A subscriber that
 * falls too far behind is dropped (its stream ends and the client resumes from its last event id), so one slow
 * reader cannot hold memory without bound. A subscriber may also ask for previews ({@code event_start},
 * {@code event_delta}) of events of some types while they are produced: those go to it in order with the events,
 * and are never stored.
 */
public final class EventLog {
    static final int SUBSCRIBER_BACKLOG = 10_000;

    private final SessionEventStore store;
    private final Map<String, Set<Subscription>> subscribers = new ConcurrentHashMap<>();
    /** Appends of one session share a stripe, so subscribers get its events in append order (a stream drops older ones). */
    private final ReentrantLock[] appendLocks = new ReentrantLock[64];
    /** Set when other servers append to the same store (nodes of a cluster): then subscribers are fed from the store. */
    private volatile ScheduledExecutorService storeFollower;
    /** Per followed session, the seq of the last event handed to its subscribers (store-fed mode only). */
    private final Map<String, Long> delivered = new ConcurrentHashMap<>();

    public EventLog(SessionEventStore store) {
        this.store = store;
        for (int i = 0; i < appendLocks.length; i++) appendLocks[i] = new ReentrantLock();
    }

    /** What a subscription hands out: a logged event, or a preview of one being produced. */
    public sealed interface Item permits Logged, Preview {}

    /** An event of the log. */
    public record Logged(SessionEvent event) implements Item {}

    /** An {@code event_start} or {@code event_delta} (its {@code type}) with its wire object; it has no id and is not stored. */
    public record Preview(String type, Map<String, Object> wire) implements Item {}

    /** A live feed of one session's events; close it when done. */
    public final class Subscription implements AutoCloseable {
        private final String sessionId;
        private final Set<String> previewed;
        private final BlockingQueue<Item> queue = new LinkedBlockingQueue<>(SUBSCRIBER_BACKLOG);
        private volatile boolean overflowed;
        private volatile boolean ended;

        private Subscription(String sessionId, Set<String> previewed) {
            this.sessionId = sessionId;
            this.previewed = Set.copyOf(previewed);
        }

        public BlockingQueue<Item> queue() { return queue; }

        /** True once the subscriber missed events or the session was deleted: the stream must end. */
        public boolean ended() { return overflowed || ended; }

        void offer(Item item) {
            if (!queue.offer(item)) overflowed = true;
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
        return append(null, sessionId, tenantId, type, body);
    }

    /** Appends an event under an id from {@link #newId()} that its previews announced; null {@code id}: a new one. */
    SessionEvent append(String id, String sessionId, String tenantId, SessionEventType type, Map<String, Object> body) {
        return append(null, id, sessionId, tenantId, type, body);
    }

    /**
     * Appends as the session's owner {@code ownerId} (null: not fenced, a server alone); throws
     * {@link dev.paddock.core.agents.SessionMovedException} when another node owns the session now.
     */
    SessionEvent append(String ownerId, String id, String sessionId, String tenantId, SessionEventType type, Map<String, Object> body) {
        ReentrantLock lock = lock(sessionId);
        lock.lock();
        try {
            SessionEvent e = ownerId != null ? store.appendAsOwner(ownerId, id, sessionId, tenantId, type.wire(), body)
                    : id == null ? store.append(sessionId, tenantId, type.wire(), body) : store.append(id, sessionId, tenantId, type.wire(), body);
            if (storeFollower != null) {
                deliverFromStore(sessionId); // in seq order with what other servers appended
                return e;
            }
            Set<Subscription> set = subscribers.get(sessionId);
            if (set != null) {
                Logged logged = new Logged(e);
                set.forEach(s -> s.offer(logged));
            }
            return e;
        } finally {
            lock.unlock();
        }
    }

    /** An id for an event that is previewed before it is appended. */
    String newId() {
        return store.newId();
    }

    /**
     * Hands a preview of an event of type {@code previewed} that is being produced to the subscribers that asked for
     * previews of that type, in order with the session's appended events.
     */
    void preview(String sessionId, SessionEventType previewed, Preview preview) {
        Set<Subscription> set = subscribers.get(sessionId);
        if (set == null) return;
        ReentrantLock lock = lock(sessionId);
        lock.lock();
        try {
            for (Subscription s : set) if (s.previewed.contains(previewed.wire())) s.offer(preview);
        } finally {
            lock.unlock();
        }
    }

    private ReentrantLock lock(String sessionId) {
        return appendLocks[Math.floorMod(sessionId.hashCode(), appendLocks.length)];
    }

    public Subscription subscribe(String sessionId) {
        return subscribe(sessionId, Set.of());
    }

    /** A feed that also carries previews of events of the {@code previewed} types (wire names such as {@code agent.message}). */
    public Subscription subscribe(String sessionId, Set<String> previewed) {
        Subscription s = new Subscription(sessionId, previewed);
        ReentrantLock lock = lock(sessionId);
        lock.lock();
        try {
            if (storeFollower != null && !delivered.containsKey(sessionId)) delivered.put(sessionId, newestSeq(sessionId));
            subscribers.computeIfAbsent(sessionId, k -> ConcurrentHashMap.newKeySet()).add(s);
        } finally {
            lock.unlock();
        }
        return s;
    }

    /**
     * Other servers append to this store too (nodes of a cluster sharing PostgreSQL): from now on subscribers get
     * every event from the store, in seq order, read at once after a local append and every {@code every} for the
     * appends of other servers. Call once, before serving.
     */
    public synchronized void followStore(Duration every) {
        if (storeFollower != null) return;
        ScheduledExecutorService follower =
                Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-session-events").factory());
        storeFollower = follower;
        follower.scheduleWithFixedDelay(() -> subscribers.keySet().forEach(this::deliverQuietly), every.toMillis(), every.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void deliverQuietly(String sessionId) {
        try {
            deliverFromStore(sessionId);
        } catch (RuntimeException e) {
            // the store did not answer this round; the next round reads from the same place
        }
    }

    /** Hands the session's subscribers what the store holds past the last event they were given. */
    private void deliverFromStore(String sessionId) {
        ReentrantLock lock = lock(sessionId);
        lock.lock();
        try {
            Set<Subscription> set = subscribers.get(sessionId);
            if (set == null || set.isEmpty()) {
                delivered.remove(sessionId);
                return;
            }
            long from = delivered.computeIfAbsent(sessionId, this::newestSeq);
            while (true) {
                List<SessionEvent> batch = store.after(sessionId, from, 500);
                for (SessionEvent e : batch) {
                    Logged logged = new Logged(e);
                    set.forEach(s -> s.offer(logged));
                    from = e.seq();
                }
                if (batch.size() < 500) break;
            }
            delivered.put(sessionId, from);
        } finally {
            lock.unlock();
        }
    }

    private long newestSeq(String sessionId) {
        return store.list(sessionId, PageRequest.first(1), true).data().stream().mapToLong(SessionEvent::seq).findFirst().orElse(0);
    }

    /** Stops following the store. */
    public void close() {
        ScheduledExecutorService follower = storeFollower;
        if (follower != null) follower.shutdownNow();
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
