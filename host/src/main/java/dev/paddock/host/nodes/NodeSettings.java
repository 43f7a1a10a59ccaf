package dev.paddock.host.nodes;

import java.time.Duration;
import java.util.Map;

/**
 * One node's settings: its stable id (kept in its data directory), the URL the other nodes reach it at, its labels
 * (placement constraints match them) and the length of its lease; a heartbeat renews the lease every third of it.
 */
public record NodeSettings(String nodeId, String url, Map<String, String> labels, Duration lease) {
    public NodeSettings {
        labels = Map.copyOf(labels);
        if (lease.compareTo(Duration.ofSeconds(1)) < 0) throw new IllegalArgumentException("the node lease must be at least 1s");
    }

    public Duration heartbeatEvery() {
        return lease.dividedBy(3);
    }
}
