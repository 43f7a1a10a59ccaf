package dev.paddock.server.cluster;

import dev.paddock.core.nodes.NodeStore;
import dev.paddock.core.store.Store;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * What the HTTP server of a node needs to know of its cluster: its own node id, the nodes (their addresses, labels
 * and capacity), the store (where each sandbox is held, whose sandbox a checkpoint is), the live sandbox of a session (by tenant and session id: its turns are
 * served where that sandbox runs), the secret nodes authenticate forwarded requests with, and whether a sandbox is
 * held here ({@code heldHere}: attached to this node's host while its lease holds), which spares the store a lookup
 * for every request this node answers itself, and the node that runs a session's agent loop when another live node
 * does ({@code sessionNode}, by tenant and session id: its owner).
 */
public record ClusterLink(String selfId, NodeStore nodes, Store store, String secret,
                          BiFunction<String, String, Optional<String>> sessionSandbox, Predicate<String> heldHere,
                          BiFunction<String, String, Optional<String>> sessionNode) {
    public ClusterLink {
        if (secret == null || secret.length() < 32) throw new IllegalArgumentException("the cluster secret must be 32+ characters");
    }

    /** A node whose sessions are not owned by nodes: a session's writes follow its live sandbox only. */
    public ClusterLink(String selfId, NodeStore nodes, Store store, String secret,
                       BiFunction<String, String, Optional<String>> sessionSandbox, Predicate<String> heldHere) {
        this(selfId, nodes, store, secret, sessionSandbox, heldHere, (tenant, session) -> Optional.empty());
    }

    /** A node that asks the store where every sandbox is held. */
    public ClusterLink(String selfId, NodeStore nodes, Store store, String secret, BiFunction<String, String, Optional<String>> sessionSandbox) {
        this(selfId, nodes, store, secret, sessionSandbox, id -> false);
    }

    /** A node without the Managed Agents layer: only sandbox routes are forwarded. */
    public ClusterLink(String selfId, NodeStore nodes, Store store, String secret) {
        this(selfId, nodes, store, secret, (tenant, session) -> Optional.empty());
    }
}
