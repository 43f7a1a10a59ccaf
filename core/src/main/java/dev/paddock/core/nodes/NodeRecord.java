package dev.paddock.core.nodes;

import dev.paddock.core.spi.Fence;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One server of a cluster sharing a PostgreSQL store. {@code id} is stable per data directory; {@code epoch} grows
 * each time a process of the node joins, so sandboxes held by an earlier process are told apart (their fence's owner
 * is {@code id@epoch}). {@code url} is where the other nodes reach it. The lease is renewed by heartbeats; a node whose
 * lease expired is lost. {@code checkpointDir} is the directory the node keeps checkpoint archives in (null: not
 * told); nodes with the same one share it, and so can restore each other's sandboxes from their checkpoints.
 */
public record NodeRecord(
        String id,
        long epoch,
        String url,
        List<String> drivers,
        Map<String, String> labels,
        NodeCapacity capacity,
        NodeState state,
        Instant joinedAt,
        Instant heartbeatAt,
        Instant leaseExpiresAt,
        String checkpointDir) {

    public NodeRecord {
        drivers = List.copyOf(drivers);
        labels = Map.copyOf(labels);
    }

    public NodeRecord(String id, long epoch, String url, List<String> drivers, Map<String, String> labels, NodeCapacity capacity,
                      NodeState state, Instant joinedAt, Instant heartbeatAt, Instant leaseExpiresAt) {
        this(id, epoch, url, drivers, labels, capacity, state, joinedAt, heartbeatAt, leaseExpiresAt, null);
    }

    /** Owner id of the sandboxes this node's current process holds. */
    public String ownerId() {
        return Fence.owner(id, epoch);
    }

    public boolean leaseExpired(Instant now) {
        return !now.isBefore(leaseExpiresAt);
    }

    /** True when this node may take a new sandbox on {@code driver} whose placement asks for {@code labels}. */
    public boolean accepts(String driver, Map<String, String> wantedLabels, Instant now) {
        if (state != NodeState.ACTIVE || leaseExpired(now)) return false;
        if (driver != null && !drivers.contains(driver)) return false;
        return wantedLabels.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }
}
