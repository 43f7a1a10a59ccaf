package dev.paddock.agents;

import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionOwners;
import dev.paddock.core.agents.SessionOwners.Owned;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which node runs a session's agent loop when several servers share the store: one node at a time, its owner
 * ({@link SessionOwners}). A node woken for a session (an event arrived here) claims it when no live node owns it,
 * and otherwise asks the owner to go round through the store; each node looks for such asks every
 * {@link #POLL}. When a node is lost, the survivor that handles the loss ({@link #nodeLost}) moves each of its sessions
 * whose turn was cut off to a live node (the node its sandbox went on to, else itself) with a compare-and-set on the
 * owner, so exactly one survivor does; the session goes {@code rescheduling} and the new owner runs the turn on.
 * Sessions of the lost node that were idle are let go (the next event's node claims them). An owner's appends are
 * fenced by the owner ({@code appendAsOwner}), so a node that lost a session writes nothing more to it.
 */
final class SessionOwnership implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SessionOwnership.class);
    static final Duration POLL = Duration.ofMillis(500);

    private final SessionOwners owners;
    private final ResourceStore resources;
    private final EventLog events;
    private final SessionSandboxes sandboxes;
    private final ClusterMembership cluster;
    private final Clock clock;
    private final ScheduledExecutorService poll =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-session-owners").factory());

    SessionOwnership(SessionOwners owners, ResourceStore resources, EventLog events, SessionSandboxes sandboxes, ClusterMembership cluster,
                     Clock clock) {
        this.owners = owners;
        this.resources = resources;
        this.events = events;
        this.sandboxes = sandboxes;
        this.cluster = cluster;
        this.clock = clock;
    }

    /** Starts looking for wakes asked of this node and for sessions an earlier process of this node owned. */
    void start(SessionEngine engine) {
        long every = POLL.toMillis();
        poll.scheduleWithFixedDelay(() -> pollOnce(engine), every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * The owner id this node runs the session's loop as, claiming it when no live node owns it; empty when a live
     * node owns it (it was asked to go round) or the session is gone.
     */
    Optional<String> claim(String sessionId) {
        return claim(sessionId, false);
    }

    /** As {@link #claim(String)}; with {@code interrupt} a live owner elsewhere is asked to stop its turn under way too. */
    Optional<String> claim(String sessionId, boolean interrupt) {
        for (int attempt = 0; attempt < 5; attempt++) {
            String me = cluster.selfOwner();
            Optional<Owned> found = owners.find(sessionId);
            if (found.isEmpty()) return Optional.empty();
            String owner = found.get().ownerId();
            if (me.equals(owner)) return Optional.of(me);
            if (owner != null && cluster.live(owner)) {
                if (owners.requestWake(sessionId, owner, interrupt)) return Optional.empty();
                continue; // the owner changed meanwhile
            }
            if (owners.claim(sessionId, owner, me, false)) return Optional.of(me);
        }
        log.warn("session {}: its owner changed five times in a row while this node tried to claim it", sessionId);
        return Optional.empty();
    }

    /** The node that runs the session when that is another live node; empty when this one does or none does. */
    Optional<String> ownerElsewhere(String tenantId, String sessionId) {
        return owners.find(sessionId).filter(o -> o.tenantId().equals(tenantId) && o.ownerId() != null)
                .filter(o -> !o.ownerId().equals(cluster.selfOwner()) && cluster.live(o.ownerId()))
                .map(o -> nodeOf(o.ownerId()));
    }

    /**
     * A node was marked lost (on the survivor that handles its loss, and again on every sweep while it stays lost, so
     * a survivor that died half-way is made up for): its sessions move on.
     */
    void nodeLost(String nodeId, SessionEngine engine) {
        for (Owned o : owners.ownedOnNode(nodeId)) {
            if (o.ownerId() == null || cluster.live(o.ownerId())) continue; // a newer epoch of the node runs it
            try {
                moveOn(o, engine);
            } catch (RuntimeException e) {
                log.warn("session {} of lost node {} could not move on: {}", o.sessionId(), nodeId, e.toString());
            }
        }
    }

    private void moveOn(Owned o, SessionEngine engine) {
        if (!inFlight(o.status())) {
            owners.claim(o.sessionId(), o.ownerId(), null, false); // nothing under way: the next event's node claims it
            return;
        }
        Session session = resources.find(Resource.SESSION, o.tenantId(), o.sessionId()).map(Session::new).orElse(null);
        if (session == null) return;
        // the session follows its sandbox where it went on from a checkpoint; otherwise it runs here, on a new sandbox
        Optional<SessionSandboxes.Successor> next = sandboxes.successor(session).filter(s -> cluster.live(s.ownerId()));
        String target = next.map(SessionSandboxes.Successor::ownerId).orElse(cluster.selfOwner());
        if (!owners.claim(o.sessionId(), o.ownerId(), target, false)) return; // another survivor moved it first
        log.info("session {} of lost owner {}: its turn goes on at {}", o.sessionId(), o.ownerId(), target);
        next.ifPresent(s -> follow(session, s.sandboxId()));
        rescheduled(session);
        if (target.equals(cluster.selfOwner())) engine.wake(o.tenantId(), o.sessionId());
        else owners.requestWake(o.sessionId(), target);
    }

    /** The session's status becomes rescheduling, and its events say so, before its new owner goes on. */
    private void rescheduled(Session session) {
        CutOffTurns.rescheduled(resources, events, clock, session);
    }

    private void follow(Session session, String sandboxId) {
        CutOffTurns.update(resources, session, s -> s.withSandbox(sandboxId));
    }

    private void pollOnce(SessionEngine engine) {
        try {
            String me = cluster.selfOwner();
            for (Owned o : owners.wakesFor(me)) {
                if (!owners.takeWake(o.sessionId(), me, o.interruptRequested())) continue;
                // an interrupt sent to another node takes effect as one sent here: the step under way is cancelled
                if (o.interruptRequested()) engine.interruptHere(o.tenantId(), o.sessionId());
                else engine.wake(o.tenantId(), o.sessionId());
            }
            stopLost(engine);
            // an earlier process of this node (restarted within its lease, or rejoined) owned these: its turns go on here
            for (Owned o : owners.ownedOnNode(nodeOf(me))) {
                if (o.ownerId() == null || o.ownerId().equals(me) || cluster.live(o.ownerId())) continue;
                if (!owners.claim(o.sessionId(), o.ownerId(), me, false) || !inFlight(o.status())) continue;
                resources.find(Resource.SESSION, o.tenantId(), o.sessionId()).map(Session::new).ifPresent(this::rescheduled);
                engine.wake(o.tenantId(), o.sessionId());
            }
        } catch (RuntimeException e) {
            log.debug("looking for session wakes failed: {}", e.toString());
        }
    }

    /**
     * Stops the loops running here whose session this node no longer owns (a survivor took it over while this node
     * was cut off or paused) or that ended on another node (archived, deleted), so their model request or tool call
     * under way stops within a poll rather than running on unseen.
     */
    private void stopLost(SessionEngine engine) {
        engine.runningOwners().forEach((sessionId, owner) -> {
            Optional<Owned> now = owners.find(sessionId);
            boolean ended = now.isPresent() && Session.TERMINATED.equals(now.get().status());
            if (now.isPresent() && owner.equals(now.get().ownerId()) && !ended) return;
            log.info("session {} is {} here: its loop stops", sessionId, ended ? "ended" : "no longer run");
            Session session = ended ? resources.find(Resource.SESSION, now.get().tenantId(), sessionId).map(Session::new).orElse(null) : null;
            engine.stopHere(sessionId, owner, session);
        });
    }

    private static boolean inFlight(String status) {
        return Session.RUNNING.equals(status) || Session.RESCHEDULING.equals(status);
    }

    static String nodeOf(String ownerId) {
        int at = ownerId.lastIndexOf('@');
        return at < 0 ? ownerId : ownerId.substring(0, at);
    }

    @Override
    public void close() {
        poll.shutdownNow();
    }
}
