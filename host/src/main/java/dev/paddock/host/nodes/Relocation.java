package dev.paddock.host.nodes;

import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.Placement;
import dev.paddock.core.spi.Fence;
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
 * directory of the sandbox's newest checkpoint there ({@code checkpoint_dir}). The survivor hands the record to that
 * node (its fence's owner becomes the target's current epoch) with a reason that says so; the target restores the
 * sandbox under the same id ({@link HandedOver}). The labels a create asked for are not recorded, so they are not
 * asked again.
 */
record Relocation(NodeRecord lost, NodeRecord target, CheckpointRecord checkpoint) {
    /** How many of a sandbox's newest checkpoints are looked at for one in a shared directory. */
    private static final int LOOK_AT = 50;

    static Optional<Relocation> plan(Store store, List<NodeRecord> nodes, SandboxRecord r, NodeRecord lost, Instant now) {
        if (r.state() != SandboxState.RUNNING && r.state() != SandboxState.SUSPENDED) return Optional.empty();
        for (CheckpointRecord cp : store.checkpoints().list(r.id(), PageRequest.first(LOOK_AT)).data()) {
            if (cp.archiveDir() == null) continue;
            Optional<NodeRecord> target = Placement.best(nodes, n -> !n.id().equals(lost.id()) && n.accepts(r.driver(), Map.of(), now)
                    && Objects.equals(n.checkpointDir(), cp.archiveDir()));
            if (target.isPresent()) return Optional.of(new Relocation(lost, target.get(), cp));
        }
        return Optional.empty();
    }

    /** Why a sandbox of a lost node was not handed on, for its failure reason. */
    static String whyNot(Store store, SandboxRecord r) {
        if (r.state() != SandboxState.RUNNING && r.state() != SandboxState.SUSPENDED) return "it was " + r.state().wireName();
        if (store.checkpoints().list(r.id(), PageRequest.first(1)).data().isEmpty()) return "it has no checkpoint to restore";
        return "no live node that runs driver '" + r.driver() + "' shares the checkpoint directory of its checkpoints";
    }

    /**
     * Gives the sandbox, which the survivor holds with {@code fence}, to the target; an event says why. False when its
     * record moved on since it was listed (the caller fails it instead).
     */
    boolean handOver(Store store, SandboxRecord r, Fence fence) {
        String reason = HandedOver.reason(checkpoint.id(), target.id(), "node " + lost.id() + " stopped renewing its lease (at "
                + lost.leaseExpiresAt() + ")");
        if (store.sandboxes().replaceReason(r.id(), fence, r.state(), r.stateReason(), reason).isEmpty()) return false;
        Fence handed = store.sandboxes().takeOver(r.id(), fence, target.ownerId());
        store.events().append(r.id(), handed, "sandbox.relocating", Map.of("checkpoint_id", checkpoint.id(), "from_node", lost.id(),
                "to_node", target.id(), "reason", reason));
        return true;
    }
}
