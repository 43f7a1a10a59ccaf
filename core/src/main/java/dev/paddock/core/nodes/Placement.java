package dev.paddock.core.nodes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Picks the node a new sandbox runs on: among the active nodes with a live lease that run the asked driver and carry
 * every asked label, the one with the most free memory per sandbox it holds, as of their last heartbeats; nodes short
 * of memory or process ids are passed over while another fits. A create is placed so, and so is a lost node's sandbox
 * that goes on on another node from its checkpoint.
 */
public final class Placement {
    static final long MIN_FREE_MEMORY = 64L << 20;
    static final long MIN_FREE_PIDS = 256;

    private Placement() {}

    public static NodeRecord choose(List<NodeRecord> nodes, String driver, Map<String, String> labels, Instant now) {
        return best(nodes, n -> n.accepts(driver, labels, now)).orElseThrow(() -> new PaddockException(ErrorCode.NO_NODE_FITS,
                "no active node runs driver " + (driver == null ? "(default)" : "'" + driver + "'")
                        + (labels.isEmpty() ? "" : " with labels " + labels) + "; see GET /v1/nodes"));
    }

    /** Of the nodes {@code fits} accepts, the one with the most room; empty when none fits. */
    public static Optional<NodeRecord> best(List<NodeRecord> nodes, Predicate<NodeRecord> fits) {
        List<NodeRecord> fit = nodes.stream().filter(fits).toList();
        List<NodeRecord> roomy = fit.stream().filter(n -> hasRoom(n.capacity())).toList();
        return (roomy.isEmpty() ? fit : roomy).stream().max(Comparator.comparingDouble(Placement::score));
    }

    private static boolean hasRoom(NodeCapacity c) {
        return c.memoryFreeBytes() >= MIN_FREE_MEMORY && c.pidsFree() >= MIN_FREE_PIDS;
    }

    private static double score(NodeRecord n) {
        return (double) n.capacity().memoryFreeBytes() / (n.capacity().sandboxes() + 1);
    }
}
