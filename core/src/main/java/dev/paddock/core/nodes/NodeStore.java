package dev.paddock.core.nodes;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The cluster's nodes and their leases. Every change is a compare-and-set on the node's epoch (and state), so of
 * several nodes that find the same lease expired exactly one marks it lost, and a node that was marked lost can no
 * longer renew the lease of its old epoch: it has to join again.
 */
public interface NodeStore {
    /**
     * Registers a process of node {@code proposal.id()}: a new row at epoch 1, or the existing row at its epoch + 1
     * with the new address, drivers, labels and lease (a draining node stays draining; a lost one is active again).
     * Returns the stored row.
     */
    NodeRecord join(NodeRecord proposal);

    /** Renews the lease of {@code id} at {@code epoch}; false when the node was marked lost or joined again since. */
    boolean heartbeat(String id, long epoch, NodeCapacity capacity, Instant heartbeatAt, Instant leaseExpiresAt);

    /** Records where the other nodes reach {@code id} at {@code epoch} (known once its server listens). */
    boolean setUrl(String id, long epoch, String url);

    /** Marks the node lost when it is still at {@code epoch}, not yet lost and its lease expired before {@code now}. */
    boolean markLost(String id, long epoch, Instant now);

    /** Sets a node active or draining; false when there is no such node or it is lost. */
    boolean setState(String id, NodeState state);

    Optional<NodeRecord> find(String id);

    /** Every node, by id. */
    List<NodeRecord> list();

    /**
     * The secret nodes authenticate each other's requests with: the stored one, or {@code proposed} when none is
     * stored yet (the first node's wins).
     */
    String clusterSecret(String proposed);
}
