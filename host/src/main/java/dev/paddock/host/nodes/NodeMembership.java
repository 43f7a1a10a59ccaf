package dev.paddock.host.nodes;

import dev.paddock.core.nodes.NodeCapacity;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.NodeState;
import dev.paddock.core.nodes.NodeStore;
import dev.paddock.core.store.Store;
import dev.paddock.host.HostOwner;
import dev.paddock.host.RuntimeHost;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This server as a node of a cluster: it joins (a new epoch of its node), then renews its lease every third of the
 * lease with a heartbeat that also reports its free capacity, and on every beat looks for nodes whose lease expired
 * ({@link LostNodes}) and restores the sandboxes handed to it (on a thread of their own, so they never hold up a beat). A beat that finds this node's epoch marked lost means
 * a survivor took its sandboxes over: writes pause (nothing this process holds is its own any more), and the node
 * joins again as a new epoch, whose host takes back and reaps what its node holds as a restart would; then writes
 * resume. While PostgreSQL cannot be reached the rejoin is tried again on every beat.
 */
public final class NodeMembership implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeMembership.class);
    private final NodeStore nodes;
    private final NodeSettings settings;
    private final Clock clock;
    private volatile NodeRecord joined;
    private final ScheduledExecutorService beat =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-node-heartbeat").factory());
    /** Failing and restoring sandboxes can take long: never on the heartbeat's thread, whose lease it would risk. */
    private final ScheduledExecutorService duties =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-node-duties").factory());
    private volatile boolean fenced;
    /** Until when the last renewal (or the join) holds this node's lease, by this node's clock. */
    private volatile Instant leaseUntil;
    /** Told the id of every lost node on each round of node duties, after its sandboxes were handled. */
    private final List<Consumer<String>> lossListeners = new CopyOnWriteArrayList<>();

    private NodeMembership(NodeStore nodes, NodeSettings settings, Clock clock, NodeRecord joined) {
        this.nodes = nodes;
        this.settings = settings;
        this.clock = clock;
        this.joined = joined;
        this.leaseUntil = joined.leaseExpiresAt();
    }

    /** Joins the cluster as the next epoch of {@code settings.nodeId()}, running sandboxes on {@code drivers}. */
    public static NodeMembership join(NodeStore nodes, NodeSettings settings, List<String> drivers, Clock clock) {
        Instant now = clock.instant();
        NodeRecord joined = nodes.join(proposal(settings, settings.url(), drivers, 0, now));
        log.info("joined the cluster as node {} (epoch {}) at {}", joined.id(), joined.epoch(), joined.url());
        return new NodeMembership(nodes, settings, clock, joined);
    }

    private static NodeRecord proposal(NodeSettings settings, String url, List<String> drivers, int sandboxes, Instant now) {
        return new NodeRecord(settings.nodeId(), 0, url, drivers, settings.labels(), CapacityProbe.read(sandboxes), NodeState.ACTIVE,
                now, now, now.plus(settings.lease()), settings.checkpointDir() == null ? null : settings.checkpointDir().toString());
    }

    /** Whose sandboxes this node's host looks after, and the owner id its fences carry. */
    public HostOwner owner() {
        return HostOwner.node(joined.id(), joined.epoch());
    }

    public NodeRecord joined() {
        return joined;
    }

    public String nodeId() {
        return joined.id();
    }

    /** What a node does to the store's writes while it rejoins its cluster. */
    public interface Writes {
        /** Refuse writes, saying {@code why}, until {@link #resume}. */
        void pause(String why);

        void resume();
    }

    /** Starts the heartbeat; {@code writes} pause while this node rejoins after its epoch lost its lease. */
    public void start(RuntimeHost host, Store store, Writes writes) {
        long every = settings.heartbeatEvery().toMillis();
        beat.scheduleWithFixedDelay(() -> beatOnce(host, writes), every, every, TimeUnit.MILLISECONDS);
        duties.scheduleWithFixedDelay(() -> dutiesOnce(host, store), every, every, TimeUnit.MILLISECONDS);
    }

    /** Looks for lost nodes and restores what was handed to this one, while this node's epoch holds its lease. */
    private void dutiesOnce(RuntimeHost host, Store store) {
        if (fenced) return;
        try {
            NodeRecord self = joined;
            new LostNodes(nodes, store, self.id(), self.ownerId(), clock, lossListeners).sweep();
            host.restoreHandedOver();
        } catch (RuntimeException e) {
            log.warn("node duties failed: {}", e.getMessage());
        }
    }

    private void beatOnce(RuntimeHost host, Writes writes) {
        try {
            if (fenced) {
                rejoin(host, writes);
                return;
            }
            NodeRecord self = joined;
            Instant now = clock.instant();
            NodeCapacity capacity = CapacityProbe.read(host.attachedCount());
            Instant until = now.plus(settings.lease());
            if (!nodes.heartbeat(self.id(), self.epoch(), capacity, now, until)) {
                fenced = true;
                String why = "node " + self.id() + " (epoch " + self.epoch() + ") lost its lease and a surviving node took "
                        + "over its sandboxes; it is rejoining the cluster as a new epoch, retry in a moment";
                log.error(why);
                writes.pause(why);
                rejoin(host, writes);
                return;
            }
            leaseUntil = until;
        } catch (RuntimeException e) {
            log.warn("node heartbeat failed: {}", e.getMessage());
        }
    }

    /** Joins as the next epoch and hands the host to it; writes resume once the host looks after the new epoch. */
    private void rejoin(RuntimeHost host, Writes writes) {
        NodeRecord old = joined;
        String url = nodes.find(old.id()).map(NodeRecord::url).filter(u -> !u.isBlank()).orElse(old.url());
        writes.resume(); // the join and the reaping write; should they fail, writes pause again and the next beat retries
        try {
            NodeRecord next = nodes.join(proposal(settings, url, old.drivers(), host.attachedCount(), clock.instant()));
            joined = next;
            host.rejoin(owner());
            leaseUntil = next.leaseExpiresAt();
            fenced = false;
            log.warn("node {} rejoined the cluster as epoch {} (epoch {} had lost its lease)", next.id(), next.epoch(), old.epoch());
        } catch (RuntimeException e) {
            writes.pause("node " + old.id() + " lost its lease and could not rejoin the cluster yet: " + e.getMessage());
            throw e;
        }
    }

    /**
     * Calls {@code listener} with a lost node's id on every round of node duties while the node stays lost (the
     * survivor that marks it lost first), after its sandboxes were failed or handed on; what it does must be safe to
     * repeat and to race with other survivors.
     */
    public void onNodeLost(Consumer<String> listener) {
        lossListeners.add(listener);
    }

    /** Whether {@code ownerId} is the current epoch of a node with a live lease, as the store says now. */
    public boolean live(String ownerId) {
        int at = ownerId.lastIndexOf('@');
        if (at < 0) return false;
        Instant now = clock.instant();
        return nodes.find(ownerId.substring(0, at))
                .filter(n -> n.ownerId().equals(ownerId) && n.state() != NodeState.LOST && !n.leaseExpired(now)).isPresent();
    }

    public boolean fenced() {
        return fenced;
    }

    /**
     * True while this epoch's lease holds by this node's own clock: not fenced and not past the last renewal. A node
     * that missed its renewals (frozen, or cut off from the store) stops believing it holds anything before a
     * survivor may take its sandboxes over.
     */
    public boolean holdsLease() {
        return !fenced && clock.instant().isBefore(leaseUntil);
    }

    @Override
    public void close() {
        beat.shutdownNow();
        duties.shutdownNow();
    }
}
