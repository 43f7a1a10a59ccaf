package dev.paddock.host.nodes;

import dev.paddock.core.Ids;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.Placement;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import dev.paddock.host.HandedOver;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a lost node's sandbox goes on: a live node that runs its driver, has room and shares the checkpoint
 * directory of the sandbox's newest checkpoint there ({@code checkpoint_dir}). The survivor fails the sandbox with a
 * reason that names its successor, a new sandbox held by that node, which restores it from the checkpoint
 * ({@link HandedOver}). The target also carries the node labels the sandbox's create asked for ({@code
 * placement.node_labels}, recorded with the sandbox), and the successor keeps them.
 */
record Relocation(NodeRecord lost, NodeRecord target, CheckpointRecord checkpoint) {
    /** How many of a sandbox's newest checkpoints are looked at for one in a shared directory. */
    private static final int LOOK_AT = 50;

    static Optional<Relocation> plan(Store store, List<NodeRecord> nodes, SandboxRecord r, NodeRecord lost, Instant now) {
        if (r.state() != SandboxState.RUNNING && r.state() != SandboxState.SUSPENDED) return Optional.empty();
        Map<String, String> labels = store.sandboxes().nodeLabels(r.id());
        for (CheckpointRecord cp : store.checkpoints().list(r.id(), PageRequest.first(LOOK_AT)).data()) {
            if (cp.archiveDir() == null) continue;
            Optional<NodeRecord> target = Placement.best(nodes, n -> !n.id().equals(lost.id()) && n.accepts(r.driver(), labels, now)
                    && Objects.equals(n.checkpointDir(), cp.archiveDir()));
            if (target.isPresent()) return Optional.of(new Relocation(lost, target.get(), cp));
        }
        return Optional.empty();
    }

    /** Why a sandbox of a lost node was not handed on, for its failure reason. */
    static String whyNot(Store store, SandboxRecord r) {
        if (r.state() != SandboxState.RUNNING && r.state() != SandboxState.SUSPENDED) return "it was " + r.state().wireName();
        if (store.checkpoints().list(r.id(), PageRequest.first(1)).data().isEmpty()) return "it has no checkpoint to restore";
        Map<String, String> labels = store.sandboxes().nodeLabels(r.id());
        return "no live node that runs driver '" + r.driver() + "'" + (labels.isEmpty() ? "" : " and carries the labels its create asked for "
                + labels + " (placement.node_labels)") + " shares the checkpoint directory of its checkpoints";
    }

    /**
     * Makes the sandbox's successor on the target and fails the sandbox, which the survivor holds with {@code fence},
     * saying where it goes on. The successor is a new record (a new id: the lost node's backend may still run under
     * the old one, and a backend is found by its id) with the same tenant, driver and settings, {@code creating},
     * held by the target's current epoch, whose reason and first event name the sandbox and checkpoint it comes
     * from; the target brings it up ({@link HandedOver}). Returns the successor's id.
     */
    String handOver(Store store, SandboxRecord r, Fence fence, Instant now) {
        String why = "node " + lost.id() + " stopped renewing its lease (at " + lost.leaseExpiresAt() + ")";
        String nextId = Ids.newId("sbx");
        SandboxSpec s = r.spec();
        SandboxSpec spec = new SandboxSpec(nextId, r.tenantId(), s.image(), s.writableRootfs(), s.limits(), s.env(), s.network(),
                s.credentials(), null, s.template());
        Fence nextFence = new Fence(target.ownerId(), 1);
        String reason = HandedOver.reason(checkpoint.id(), r.id(), target.id(), why);
        store.sandboxes().insert(new SandboxRecord(nextId, r.tenantId(), r.driver(), SandboxState.CREATING, spec, nextFence, null,
                r.timeout(), r.idleSuspendAfter(), r.idleTerminateAfter(), now, now, now, reason));
        store.sandboxes().setNodeLabels(nextId, nextFence, store.sandboxes().nodeLabels(r.id()));
        store.events().append(nextId, nextFence, HandedOver.EVENT, Map.of("checkpoint_id", checkpoint.id(), "from_sandbox", r.id(),
                "from_node", lost.id(), "to_node", target.id(), "reason", reason));
        String failed = HandedOver.goesOn(why, nextId, target.id(), checkpoint.id());
        store.sandboxes().transition(r.id(), fence, SandboxState.FAILED, failed);
        store.events().append(r.id(), fence, "sandbox.failed", Map.of("code", "node_lost", "node_id", lost.id(), "reason", failed,
                "sandbox_id", nextId, "checkpoint_id", checkpoint.id()));
        return nextId;
    }
}
