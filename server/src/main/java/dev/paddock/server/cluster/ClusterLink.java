package dev.paddock.server.cluster;

import dev.paddock.core.nodes.NodeStore;
import dev.paddock.core.store.SandboxStore;

/**
 * What the HTTP server of a node needs to know of its cluster: its own node id, the nodes (their addresses, labels
 * and capacity), where each sandbox is held, and the secret nodes authenticate forwarded requests with.
 */
public record ClusterLink(String selfId, NodeStore nodes, SandboxStore sandboxes, String secret) {
    public ClusterLink {
        if (secret == null || secret.length() < 32) throw new IllegalArgumentException("the cluster secret must be 32+ characters");
    }
}
