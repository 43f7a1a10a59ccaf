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
    /**
     * A session as its ownership sees it: its owner (null: none), its status, whether a wake was asked for, and
     * whether that wake carries an interrupt (a {@code user.interrupt} reached another node).
     */
    record Owned(String sessionId, String tenantId, String ownerId, String status, boolean wakeRequested, boolean interruptRequested) {}

    Optional<Owned> find(String sessionId);

    /**
     * Makes {@code newOwner} (null: none) the session's owner if its owner is still {@code expectedOwner} (null: none);
     * {@code wake} asks the new owner to go round. False when the owner had changed (or there is no such session).
     */
    boolean claim(String sessionId, String expectedOwner, String newOwner, boolean wake);

    /** Asks the session's owner to go round again, if {@code ownerId} still owns it; false otherwise. */
    default boolean requestWake(String sessionId, String ownerId) {
        return requestWake(sessionId, ownerId, false);
    }

    /**
     * As {@link #requestWake(String, String)}; with {@code interrupt} the owner is also to stop the turn under way, as
     * for an interrupt sent to it. A wake asked without it never takes back an interrupt already asked.
     */
    boolean requestWake(String sessionId, String ownerId, boolean interrupt);

    /** Takes back a wake asked of {@code ownerId} (with or without an interrupt), if it still owns the session; false otherwise. */
    default boolean takeWake(String sessionId, String ownerId) {
        return takeWake(sessionId, ownerId, false) || takeWake(sessionId, ownerId, true);
    }

    /**
     * Takes back a wake asked of {@code ownerId} exactly as it was seen ({@code interrupt} or not), if it still owns the
     * session; false otherwise, also when the wake changed meanwhile (an interrupt was added: take it on the next look).
     */
    boolean takeWake(String sessionId, String ownerId, boolean interrupt);

    /** The sessions {@code ownerId} owns that it was asked to go round. */
    List<Owned> wakesFor(String ownerId);

    /** The sessions any epoch of node {@code nodeId} owns. */
    List<Owned> ownedOnNode(String nodeId);

    /** The sessions whose turn runs (status running or rescheduling), whoever owns them. */
    List<Owned> inFlight();
}
