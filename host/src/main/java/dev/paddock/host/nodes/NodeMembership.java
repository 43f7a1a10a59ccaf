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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This server as a node of a cluster: it joins (a new epoch of its node), then renews its lease every third of the
 * lease with a heartbeat that also reports its free capacity, and on every beat looks for nodes whose lease expired
 * ({@link LostNodes}). A beat that finds this node's epoch marked lost means a survivor failed its sandboxes:
 * {@code onFenced} is told (the server stops writing), since nothing this process holds is its own any more.
 */
public final class NodeMembership implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeMembership.class);
    private final NodeStore nodes;
    private final NodeSettings settings;
    private final Clock clock;
    private final NodeRecord joined;
    private final ScheduledExecutorService beat =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-node-heartbeat").factory());
    private volatile boolean fenced;
    /** Until when the last renewal (or the join) holds this node's lease, by this node's clock. */
    private volatile Instant leaseUntil;

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
        NodeRecord proposal = new NodeRecord(settings.nodeId(), 0, settings.url(), drivers, settings.labels(),
                CapacityProbe.read(0), NodeState.ACTIVE, now, now, now.plus(settings.lease()));
        NodeRecord joined = nodes.join(proposal);
        log.info("joined the cluster as node {} (epoch {}) at {}", joined.id(), joined.epoch(), joined.url());
        return new NodeMembership(nodes, settings, clock, joined);
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

    /** Starts the heartbeat; {@code onFenced} hears once that this epoch lost its lease. */
    public void start(RuntimeHost host, Store store, Consumer<String> onFenced) {
        LostNodes lost = new LostNodes(nodes, store, joined.id(), owner().ownerId(), clock);
        long every = settings.heartbeatEvery().toMillis();
        beat.scheduleWithFixedDelay(() -> beatOnce(host, lost, onFenced), every, every, TimeUnit.MILLISECONDS);
    }

    private void beatOnce(RuntimeHost host, LostNodes lost, Consumer<String> onFenced) {
        if (fenced) return;
        try {
            Instant now = clock.instant();
            NodeCapacity capacity = CapacityProbe.read(host.attachedCount());
            Instant until = now.plus(settings.lease());
            if (!nodes.heartbeat(joined.id(), joined.epoch(), capacity, now, until)) {
                fenced = true;
                String why = "node " + joined.id() + " (epoch " + joined.epoch() + ") lost its lease and a surviving node took "
                        + "over its sandboxes; restart this server to rejoin the cluster as a new epoch";
                log.error(why);
                onFenced.accept(why);
                return;
            }
            leaseUntil = until;
            lost.sweep();
        } catch (RuntimeException e) {
            log.warn("node heartbeat failed: {}", e.getMessage());
        }
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
    }
}
