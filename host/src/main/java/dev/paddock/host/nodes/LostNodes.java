package dev.paddock.host.nodes;

import dev.paddock.core.FenceLostException;
import dev.paddock.core.PaddockException;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.NodeState;
import dev.paddock.core.nodes.NodeStore;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds nodes whose lease expired and, for each one this node wins (a compare-and-set on the lost node's row, so
 * exactly one survivor acts), takes over the lost node's active sandboxes (fence generation + 1: the lost process can
 * no longer change them) and marks them failed. A running or suspended one with a checkpoint in a checkpoint directory
 * that a live node shares goes on as a new sandbox on that node, restored there from its newest such checkpoint
 * ({@link Relocation}); the reason names it. The others cannot go on elsewhere, their workspaces being on the lost
 * node's disk; the reason says so.
 */
final class LostNodes {
    private static final Logger log = LoggerFactory.getLogger(LostNodes.class);
    private final NodeStore nodes;
    private final Store store;
    private final String selfId;
    private final String ownerId;
    private final Clock clock;
    private final List<Consumer<String>> listeners;

    LostNodes(NodeStore nodes, Store store, String selfId, String ownerId, Clock clock) {
        this(nodes, store, selfId, ownerId, clock, List.of());
    }

    LostNodes(NodeStore nodes, Store store, String selfId, String ownerId, Clock clock, List<Consumer<String>> listeners) {
        this.nodes = nodes;
        this.store = store;
        this.selfId = selfId;
        this.ownerId = ownerId;
        this.clock = clock;
        this.listeners = listeners;
    }

    /** The nodes this pass marked lost. */
    List<String> sweep() {
        Instant now = clock.instant();
        List<String> lost = new ArrayList<>();
        for (NodeRecord n : nodes.list()) {
            if (n.id().equals(selfId) || n.state() == NodeState.LOST || !n.leaseExpired(now)) continue;
            if (!nodes.markLost(n.id(), n.epoch(), now)) continue; // another survivor won, or the node came back
            log.warn("node {} ({}) stopped renewing its lease (expired {}); failing its sandboxes", n.id(), n.url(), n.leaseExpiresAt());
            lost.add(n.id());
            failSandboxesOf(n);
            tell(n);
        }
        // a node lost earlier whose sandboxes were not all failed (this survivor died half-way) is finished here
        for (NodeRecord n : nodes.list()) {
            if (n.state() == NodeState.LOST && !n.id().equals(selfId) && !lost.contains(n.id())) {
                failSandboxesOf(n);
                tell(n);
            }
        }
        return lost;
    }

    /** What else a lost node ran (the agent loops of its sessions) goes on elsewhere, once its sandboxes are handled. */
    private void tell(NodeRecord n) {
        for (Consumer<String> l : listeners) {
            try {
                l.accept(n.id());
            } catch (RuntimeException e) {
                log.warn("a listener of the loss of node {} failed: {}", n.id(), e.toString());
            }
        }
    }

    private void failSandboxesOf(NodeRecord n) {
        for (SandboxRecord r : store.sandboxes().listActiveOn(n.id())) {
            try {
                Fence fence = store.sandboxes().takeOver(r.id(), r.fence(), ownerId);
                Optional<Relocation> relocation = Relocation.plan(store, nodes.list(), r, n, clock.instant());
                if (relocation.isPresent()) {
                    String next = relocation.get().handOver(store, r, fence, clock.instant());
                    log.info("sandbox {} of lost node {} goes on as {} on node {} from checkpoint {}", r.id(), n.id(), next,
                            relocation.get().target().id(), relocation.get().checkpoint().id());
                    continue;
                }
                String reason = reason(n, Relocation.whyNot(store, r));
                store.sandboxes().transition(r.id(), fence, SandboxState.FAILED, reason);
                store.events().append(r.id(), fence, "sandbox.failed", Map.of("code", "node_lost", "node_id", n.id(), "reason", reason));
            } catch (FenceLostException e) {
                log.debug("sandbox {} of lost node {} was taken over meanwhile", r.id(), n.id());
            } catch (PaddockException e) {
                log.warn("could not fail sandbox {} of lost node {}: {}", r.id(), n.id(), e.getMessage());
            }
        }
    }

    static String reason(NodeRecord n, String whyNotRestored) {
        return "node " + n.id() + " stopped renewing its lease (at " + n.leaseExpiresAt() + "); the sandbox ran there and its "
                + "workspace is on that node's disk, and " + whyNotRestored + ", so it cannot go on on another node: create a new sandbox";
    }
}
