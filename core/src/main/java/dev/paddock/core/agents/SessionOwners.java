package dev.paddock.core.agents;

import java.util.List;
import java.util.Optional;

/**
 * Which node's process runs each session's agent loop, for servers that share one store (nodes of a cluster): the
 * owner is a node's owner id ({@code <node>@<epoch>}), null while no node runs it. Every change of owner is a
 * compare-and-set on the owner, so of several nodes that claim a session at once exactly one wins. A node that does
 * not own a session asks its owner to go round again ({@link #requestWake}) instead of running the loop itself.
 */
public interface SessionOwners {
    /** A session as its ownership sees it: its owner (null: none), its status, and whether a wake was asked for. */
    record Owned(String sessionId, String tenantId, String ownerId, String status, boolean wakeRequested) {}

    Optional<Owned> find(String sessionId);

    /**
     * Makes {@code newOwner} (null: none) the session's owner if its owner is still {@code expectedOwner} (null: none);
     * {@code wake} asks the new owner to go round. False when the owner had changed (or there is no such session).
     */
    boolean claim(String sessionId, String expectedOwner, String newOwner, boolean wake);

    /** Asks the session's owner to go round again, if {@code ownerId} still owns it; false otherwise. */
    boolean requestWake(String sessionId, String ownerId);

    /** Takes back a wake asked of {@code ownerId}, if it still owns the session and one was asked; false otherwise. */
    boolean takeWake(String sessionId, String ownerId);

    /** The sessions {@code ownerId} owns that it was asked to go round. */
    List<Owned> wakesFor(String ownerId);

    /** The sessions any epoch of node {@code nodeId} owns. */
    List<Owned> ownedOnNode(String nodeId);
}
