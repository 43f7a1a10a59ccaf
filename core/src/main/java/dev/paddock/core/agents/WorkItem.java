package dev.paddock.core.agents;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A unit of work of a self-hosted environment's queue: serve one session. {@code state} is one of queued,
 * starting (claimed, not acknowledged), active, stopping, stopped. {@code generation} counts claims: each claim
 * issues a new lease, and a worker holding an older generation is fenced out. {@code lastHeartbeat} is the token
 * the next heartbeat must present ({@code null}: none yet). {@code revision} is bumped by every update.
 */
public record WorkItem(
        String id,
        String tenantId,
        String environmentId,
        String sessionId,
        String state,
        String workerId,
        long generation,
        String lastHeartbeat,
        Instant leaseExpiresAt,
        long ttlSeconds,
        Instant createdAt,
        Instant claimedAt,
        Instant acknowledgedAt,
        Instant startedAt,
        Instant stopRequestedAt,
        Instant stoppedAt,
        Map<String, String> metadata,
        long revision) {

    public static final String QUEUED = "queued";
    public static final String STARTING = "starting";
    public static final String ACTIVE = "active";
    public static final String STOPPING = "stopping";
    public static final String STOPPED = "stopped";

    public WorkItem {
        // kept in the order given, as the wire shows it
        metadata = metadata == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }

    public boolean live() {
        return !STOPPED.equals(state);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Copy-with for the many small state changes of a lease. */
    public static final class Builder {
        private String state, workerId, lastHeartbeat;
        private long generation, ttlSeconds;
        private Instant leaseExpiresAt, claimedAt, acknowledgedAt, startedAt, stopRequestedAt, stoppedAt;
        private Map<String, String> metadata;
        private final WorkItem base;

        private Builder(WorkItem w) {
            base = w;
            state = w.state; workerId = w.workerId; lastHeartbeat = w.lastHeartbeat; generation = w.generation;
            ttlSeconds = w.ttlSeconds; leaseExpiresAt = w.leaseExpiresAt; claimedAt = w.claimedAt;
            acknowledgedAt = w.acknowledgedAt; startedAt = w.startedAt; stopRequestedAt = w.stopRequestedAt;
            stoppedAt = w.stoppedAt; metadata = w.metadata;
        }

        public Builder state(String v) { state = v; return this; }
        public Builder workerId(String v) { workerId = v; return this; }
        public Builder lastHeartbeat(String v) { lastHeartbeat = v; return this; }
        public Builder generation(long v) { generation = v; return this; }
        public Builder ttlSeconds(long v) { ttlSeconds = v; return this; }
        public Builder leaseExpiresAt(Instant v) { leaseExpiresAt = v; return this; }
        public Builder claimedAt(Instant v) { claimedAt = v; return this; }
        public Builder acknowledgedAt(Instant v) { acknowledgedAt = v; return this; }
        public Builder startedAt(Instant v) { startedAt = v; return this; }
        public Builder stopRequestedAt(Instant v) { stopRequestedAt = v; return this; }
        public Builder stoppedAt(Instant v) { stoppedAt = v; return this; }
        public Builder metadata(Map<String, String> v) { metadata = v; return this; }

        public WorkItem build() {
            return new WorkItem(base.id, base.tenantId, base.environmentId, base.sessionId, state, workerId, generation,
                    lastHeartbeat, leaseExpiresAt, ttlSeconds, base.createdAt, claimedAt, acknowledgedAt, startedAt,
                    stopRequestedAt, stoppedAt, metadata, base.revision);
        }
    }
}
