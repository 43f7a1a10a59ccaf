package dev.paddock.agents;

/**
 * What the agents layer needs of the cluster its server is a node of: the owner id this node's process runs sessions
 * as now ({@code <node>@<epoch>}; it changes when the node rejoins as a new epoch), and whether an owner id is the
 * current epoch of a node that holds a live lease.
 */
public interface ClusterMembership {
    String selfOwner();

    boolean live(String ownerId);
}
