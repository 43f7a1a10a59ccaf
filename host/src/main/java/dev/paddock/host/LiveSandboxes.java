package dev.paddock.host;

import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.SandboxStore;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandboxes attached to this host process, and when each was last used. Activity is kept here, in memory, so
 * an exec does not pay a database write; the sweep reads it for the idle policy and persists it ({@link #flush}).
 * A host that stops forgets both: its successor re-attaches the sandboxes and starts from the stored activity.
 */
final class LiveSandboxes {
    private static final Logger log = LoggerFactory.getLogger(LiveSandboxes.class);
    private final Map<String, Sandbox> live = new ConcurrentHashMap<>();
    private final Map<String, Instant> activity = new ConcurrentHashMap<>();
    private final Clock clock;

    LiveSandboxes(Clock clock) {
        this.clock = clock;
    }

    /** The sandbox is this host's from now on, and counts as just used. */
    void attach(String id, Sandbox sandbox) {
        live.put(id, sandbox);
        touch(id);
    }

    /** The attached sandbox, or null. */
    Sandbox get(String id) {
        return live.get(id);
    }

    /** The ids of the attached sandboxes, as they are now. */
    List<String> ids() {
        return List.copyOf(live.keySet());
    }

    /** Forgets the sandbox; the attached one, or null. */
    Sandbox detach(String id) {
        activity.remove(id);
        return live.remove(id);
    }

    void touch(String id) {
        activity.put(id, clock.instant());
    }

    /** The later of the stored and the in-memory activity. */
    Instant lastActivity(SandboxRecord r) {
        Instant mem = activity.get(r.id());
        return mem != null && mem.isAfter(r.lastActivityAt()) ? mem : r.lastActivityAt();
    }

    /** Stores activity newer than the record's (best effort: the next sweep tries again). */
    void flush(SandboxRecord r, SandboxStore store) {
        Instant mem = activity.get(r.id());
        if (mem == null || !mem.isAfter(r.lastActivityAt())) return;
        try {
            store.touch(r.id(), r.fence(), mem);
        } catch (RuntimeException e) {
            log.debug("touch of {} failed: {}", r.id(), e.getMessage());
        }
    }

    int size() {
        return live.size();
    }

    /** Drops every handle; the sandboxes keep running for the next host to re-attach. */
    void clear() {
        live.clear();
        activity.clear();
    }
}
