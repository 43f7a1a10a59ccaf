package dev.paddock.host.nodes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * One node's settings: its stable id (kept in its data directory), the URL the other nodes reach it at, its labels
 * (placement constraints match them), the length of its lease (a heartbeat renews it every third of it) and the
 * checkpoint directory it keeps archives in (nodes that share one can restore each other's sandboxes; null: not told).
 */
public record NodeSettings(String nodeId, String url, Map<String, String> labels, Duration lease, Path checkpointDir) {
    public NodeSettings {
        labels = Map.copyOf(labels);
        if (lease.compareTo(Duration.ofSeconds(1)) < 0) throw new IllegalArgumentException("the node lease must be at least 1s");
        checkpointDir = checkpointDir == null ? null : checkpointDir.toAbsolutePath().normalize();
    }

    public NodeSettings(String nodeId, String url, Map<String, String> labels, Duration lease) {
        this(nodeId, url, labels, lease, null);
    }

    public Duration heartbeatEvery() {
        return lease.dividedBy(3);
    }
}
