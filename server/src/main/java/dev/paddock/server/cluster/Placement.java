package dev.paddock.server.cluster;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.nodes.NodeCapacity;
import dev.paddock.core.nodes.NodeRecord;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Picks the node a new sandbox runs on: among the active nodes with a live lease that run the asked driver and carry
 * every asked label, the one with the most free memory per sandbox it holds, as of their last heartbeats; nodes short
 * of memory or process ids are passed over while another fits.
 */
final class Placement {
    static final long MIN_FREE_MEMORY = 64L << 20;
    static final long MIN_FREE_PIDS = 256;

    private Placement() {}

    static NodeRecord choose(List<NodeRecord> nodes, String driver, Map<String, String> labels, Instant now) {
        List<NodeRecord> fit = nodes.stream().filter(n -> n.accepts(driver, labels, now)).toList();
        if (fit.isEmpty()) {
            throw new PaddockException(ErrorCode.NO_NODE_FITS, "no active node runs driver " + (driver == null ? "(default)" : "'" + driver + "'")
                    + (labels.isEmpty() ? "" : " with labels " + labels) + "; see GET /v1/nodes");
        }
        List<NodeRecord> roomy = fit.stream().filter(n -> hasRoom(n.capacity())).toList();
        return (roomy.isEmpty() ? fit : roomy).stream().max(Comparator.comparingDouble(Placement::score)).orElseThrow();
    }

    private static boolean hasRoom(NodeCapacity c) {
        return c.memoryFreeBytes() >= MIN_FREE_MEMORY && c.pidsFree() >= MIN_FREE_PIDS;
    }

    private static double score(NodeRecord n) {
        return (double) n.capacity().memoryFreeBytes() / (n.capacity().sandboxes() + 1);
    }
}
