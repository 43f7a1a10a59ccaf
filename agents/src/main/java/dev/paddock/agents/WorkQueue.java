package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.WorkItem;
import dev.paddock.core.agents.WorkStore;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The self-hosted work queue: one item per session that needs serving. A poll claims an item and starts a lease
 * (generation + 1); heartbeats extend it and must present the last heartbeat token they were given, so a worker
 * that lost its lease (the item was reclaimed after it lapsed) is refused with 412 and can no longer act on the
 * item. Acks and stops that name a worker id other than the claimant's are refused with 409.
 */
public final class WorkQueue {
    static final String PREFIX = "work";
    public static final String NO_HEARTBEAT = "NO_HEARTBEAT";

    private final WorkStore store;
    private final AgentsConfig config;
    private final Clock clock;
    private final Map<String, Instant> pollers = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition queued = lock.newCondition();

    public WorkQueue(WorkStore store, AgentsConfig config, Clock clock) {
        this.store = store;
        this.config = config;
        this.clock = clock;
    }

    /** Queues work for the session unless a live item already serves it. */
    public void enqueue(String tenantId, String environmentId, String sessionId) {
        if (!store.liveForSession(sessionId).isEmpty()) return;
        Instant now = clock.instant();
        store.insert(new WorkItem(Ids.newId(PREFIX, now), tenantId, environmentId, sessionId, WorkItem.QUEUED, null, 0, null, null,
                config.defaultLeaseTtl().toSeconds(), now, null, null, null, null, null, Map.of(), 0));
        signal();
    }

    /** Stops every live item of a session (the session ended). */
    public void stopForSession(String sessionId) {
        for (WorkItem w : store.liveForSession(sessionId)) {
            Instant now = clock.instant();
            store.compareAndSet(w.toBuilder().state(WorkItem.STOPPED).stoppedAt(now).stopRequestedAt(orNow(w.stopRequestedAt(), now)).build());
        }
    }

    /** Claims the next item, waiting up to {@code blockMs} for one; empty when none came. */
    public Optional<Map<String, Object>> poll(String tenantId, String environmentId, String workerId, long blockMs, Long reclaimOlderThanMs) {
        if (blockMs < 0 || blockMs > AgentsConfig.MAX_BLOCK_MS) {
            throw new PaddockException(ErrorCode.INVALID_PARAMETER, "block_ms must be between 0 and " + AgentsConfig.MAX_BLOCK_MS);
        }
        if (reclaimOlderThanMs != null && reclaimOlderThanMs < 0) {
            throw new PaddockException(ErrorCode.INVALID_PARAMETER, "reclaim_older_than_ms must not be negative");
        }
        String worker = workerId == null || workerId.isBlank() ? "anonymous-" + Ids.newId("wkr") : Text.clip(workerId, 200);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(blockMs);
        while (true) {
            pollers.put(environmentId, clock.instant());
            Instant now = clock.instant();
            Instant unackedBefore = reclaimOlderThanMs == null ? null : now.minusMillis(reclaimOlderThanMs);
            Optional<WorkItem> claimed = store.claim(environmentId, now, unackedBefore, w -> w.toBuilder()
                    .state(WorkItem.STARTING).workerId(worker).generation(w.generation() + 1).lastHeartbeat(null)
                    .claimedAt(now).acknowledgedAt(null).startedAt(null).stopRequestedAt(null)
                    .leaseExpiresAt(now.plus(config.defaultLeaseTtl())).ttlSeconds(config.defaultLeaseTtl().toSeconds()).build());
            if (claimed.isPresent()) {
                WorkItem w = claimed.get();
                // no per-item secret yet: per-session calls authenticate with the environment key
                return Optional.of(wire(w));
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) return Optional.empty();
            lock.lock();
            try {
                queued.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } finally {
                lock.unlock();
            }
        }
    }

    public Map<String, Object> ack(String environmentId, String workId, String workerId) {
        WorkItem w = find(environmentId, workId);
        requireClaimant(w, workerId, "acknowledge");
        if (WorkItem.STOPPED.equals(w.state())) throw stopped(w);
        if (!WorkItem.STARTING.equals(w.state())) {
            throw new PaddockException(ErrorCode.ALREADY_ACKNOWLEDGED, "work " + workId + " is " + w.state() + ", not waiting for an ack");
        }
        Instant now = clock.instant();
        WorkItem acked = w.toBuilder().acknowledgedAt(now).leaseExpiresAt(now.plusSeconds(w.ttlSeconds())).build();
        save(acked);
        return wire(reload(w));
    }

    /** A lease as a heartbeat sees it: its token, whether this beat extended it, the work's state and the seconds left. */
    public record Lease(String lastHeartbeat, boolean extended, String state, long ttlSeconds) {
        /** The answer to a heartbeat. */
        public Map<String, Object> toWire() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "work_heartbeat");
            m.putAll(toCurrentState());
            return m;
        }

        /** The server's view of the lease, in the details of a failed heartbeat. */
        public Map<String, Object> toCurrentState() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("last_heartbeat", lastHeartbeat);
            m.put("lease_extended", extended);
            m.put("state", state);
            m.put("ttl_seconds", ttlSeconds);
            return m;
        }
    }

    /** The outcome of a heartbeat: the lease it extended (or not), or, for a 412, the lease as it stands. */
    public record Heartbeat(Lease response, Lease failedLease) {}

    public Heartbeat heartbeat(String environmentId, String workId, String expectedLastHeartbeat, Long desiredTtlSeconds, String workerId) {
        WorkItem w = find(environmentId, workId);
        requireClaimant(w, workerId, "heartbeat");
        String expected = expectedLastHeartbeat == null ? null : expectedLastHeartbeat.strip();
        String current = w.lastHeartbeat() == null ? NO_HEARTBEAT : w.lastHeartbeat();
        Instant now = clock.instant();
        boolean leaseLive = w.leaseExpiresAt() != null && w.leaseExpiresAt().isAfter(now);
        if (WorkItem.QUEUED.equals(w.state()) || (expected != null && !expected.equals(current)) || (!leaseLive && w.live())) {
            return new Heartbeat(null, leaseState(w, now));
        }
        if (WorkItem.STOPPED.equals(w.state())) {
            return new Heartbeat(heartbeatResponse(w, current, false), null);
        }
        long ttl = desiredTtlSeconds == null ? w.ttlSeconds() : desiredTtlSeconds;
        if (ttl < 1 || ttl > config.maxLeaseTtl().toSeconds()) {
            throw new PaddockException(ErrorCode.INVALID_PARAMETER, "desired_ttl_seconds must be between 1 and " + config.maxLeaseTtl().toSeconds());
        }
        String token = nextToken(now, w.lastHeartbeat());
        boolean stopping = WorkItem.STOPPING.equals(w.state());
        WorkItem.Builder b = w.toBuilder().lastHeartbeat(token).ttlSeconds(ttl).leaseExpiresAt(now.plusSeconds(ttl));
        if (WorkItem.STARTING.equals(w.state())) {
            b.state(WorkItem.ACTIVE).startedAt(now);
            if (w.acknowledgedAt() == null) b.acknowledgedAt(now);
        }
        WorkItem beat = b.build();
        if (!store.compareAndSet(beat)) {
            return new Heartbeat(null, leaseState(reload(w), now));
        }
        return new Heartbeat(heartbeatResponse(beat, token, !stopping), null);
    }

    public Map<String, Object> stop(String environmentId, String workId, boolean force, String workerId) {
        WorkItem w = find(environmentId, workId);
        requireClaimant(w, workerId, "stop");
        if (WorkItem.STOPPED.equals(w.state())) throw stopped(w);
        Instant now = clock.instant();
        WorkItem next = force || WorkItem.QUEUED.equals(w.state())
                ? w.toBuilder().state(WorkItem.STOPPED).stoppedAt(now).stopRequestedAt(orNow(w.stopRequestedAt(), now)).build()
                : w.toBuilder().state(WorkItem.STOPPING).stopRequestedAt(orNow(w.stopRequestedAt(), now)).build();
        save(next);
        return wire(reload(w));
    }

    public Map<String, Object> get(String environmentId, String workId) {
        return wire(find(environmentId, workId));
    }

    public Map<String, Object> updateMetadata(String environmentId, String workId, Map<String, Object> patch) {
        WorkItem w = find(environmentId, workId);
        Map<String, String> next = Fields.patchMetadata(w.metadata(), patch, "metadata");
        save(w.toBuilder().metadata(next).build());
        return wire(reload(w));
    }

    public ListResult list(String environmentId, PageRequest page) {
        Page<WorkItem> rows = store.list(environmentId, page);
        return ListResult.of(rows.map(WorkQueue::wire), page);
    }

    public Map<String, Object> stats(String environmentId) {
        Map<String, Long> counts = store.countByState(environmentId);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "work_queue_stats");
        m.put("depth", counts.getOrDefault(WorkItem.QUEUED, 0L));
        m.put("pending", counts.getOrDefault(WorkItem.STARTING, 0L) + counts.getOrDefault(WorkItem.ACTIVE, 0L)
                + counts.getOrDefault(WorkItem.STOPPING, 0L));
        m.put("oldest_queued_at", store.oldestQueued(environmentId).map(Times::iso).orElse(null));
        Instant lastPoll = pollers.get(environmentId);
        m.put("workers_polling", lastPoll != null && lastPoll.isAfter(clock.instant().minusSeconds(30)) ? 1 : 0);
        return m;
    }

    /** Whether a worker currently holds a live lease on work of this session (used to fence tool results). */
    public boolean hasLiveLease(String sessionId, String workerId) {
        Instant now = clock.instant();
        return store.liveForSession(sessionId).stream()
                .anyMatch(w -> !WorkItem.QUEUED.equals(w.state()) && w.leaseExpiresAt() != null && w.leaseExpiresAt().isAfter(now)
                        && (workerId == null || Text.clip(workerId, 200).equals(w.workerId())));
    }

    public static Map<String, Object> wire(WorkItem w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", w.id());
        m.put("type", "work");
        m.put("environment_id", w.environmentId());
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("type", "session");
        data.put("id", w.sessionId());
        m.put("data", data);
        m.put("state", w.state());
        m.put("metadata", w.metadata());
        m.put("secret", null);
        m.put("created_at", Times.iso(w.createdAt()));
        m.put("acknowledged_at", Times.iso(w.acknowledgedAt()));
        m.put("started_at", Times.iso(w.startedAt()));
        m.put("latest_heartbeat_at", w.lastHeartbeat() == null ? null : w.lastHeartbeat());
        m.put("stop_requested_at", Times.iso(w.stopRequestedAt()));
        m.put("stopped_at", Times.iso(w.stoppedAt()));
        return m;
    }

    private static Lease heartbeatResponse(WorkItem w, String token, boolean extended) {
        return new Lease(token, extended, w.state(), w.ttlSeconds());
    }

    private static Lease leaseState(WorkItem w, Instant now) {
        long left = w.leaseExpiresAt() == null ? 0 : Math.max(0, Duration.between(now, w.leaseExpiresAt()).toSeconds());
        return new Lease(w.lastHeartbeat(), false, w.state(), left);
    }

    /** Heartbeat tokens are timestamps, made strictly increasing so that two beats never share one. */
    private static String nextToken(Instant now, String previous) {
        Instant t = now.truncatedTo(ChronoUnit.MICROS);
        if (previous != null) {
            try {
                Instant prev = Instant.parse(previous);
                if (!t.isAfter(prev)) t = prev.plus(1, ChronoUnit.MICROS);
            } catch (RuntimeException ignored) {
                // an unparseable old token just means no ordering constraint
            }
        }
        return DateTimeFormatter.ISO_INSTANT.format(t);
    }

    private void requireClaimant(WorkItem w, String workerId, String action) {
        if (workerId != null && !workerId.isBlank() && w.workerId() != null && !w.workerId().equals(workerId)) {
            throw new PaddockException(ErrorCode.WORK_OWNED_BY_ANOTHER_WORKER, "work " + w.id() + " is held by another worker; "
                    + "this worker (" + Text.clip(workerId, 80) + ") may not " + action + " it");
        }
    }

    private WorkItem find(String environmentId, String workId) {
        ResourceIds.require(PREFIX, workId, "work_id");
        return store.find(environmentId, workId).orElseThrow(() -> PaddockException.notFound("work", workId));
    }

    private WorkItem reload(WorkItem w) {
        return store.find(w.environmentId(), w.id()).orElseThrow(() -> PaddockException.notFound("work", w.id()));
    }

    private void save(WorkItem w) {
        if (!store.compareAndSet(w)) {
            throw new PaddockException(ErrorCode.CONCURRENT_UPDATE, "work " + w.id() + " changed at the same time; retry");
        }
    }

    private static PaddockException stopped(WorkItem w) {
        return new PaddockException(ErrorCode.WORK_STOPPED, "work " + w.id() + " is already stopped");
    }

    private static Instant orNow(Instant t, Instant now) {
        return t == null ? now : t;
    }

    private void signal() {
        lock.lock();
        try {
            queued.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
