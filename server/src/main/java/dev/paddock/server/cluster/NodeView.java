package dev.paddock.server.cluster;

import dev.paddock.core.nodes.NodeRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A node as {@code GET /v1/nodes} shows it: its lease (when it expires, and how long ago the last heartbeat was),
 * what it has free, how many active sandboxes the store says it holds, and the directory it keeps checkpoint
 * archives in (nodes that show the same one share it and can restore each other's sandboxes; null: not reported).
 */
public record NodeView(
        String type,
        String id,
        long epoch,
        String url,
        String state,
        boolean self,
        List<String> drivers,
        Map<String, String> labels,
        Capacity capacity,
        long activeSandboxes,
        Instant joinedAt,
        Instant heartbeatAt,
        Instant leaseExpiresAt,
        long leaseAgeMs,
        String checkpointDir) {

    public record Capacity(long memoryFreeBytes, long pidsFree, int attachedSandboxes) {}

    static NodeView of(NodeRecord n, String selfId, long activeSandboxes, Instant now) {
        return new NodeView("node", n.id(), n.epoch(), n.url(), n.state().wireName(), n.id().equals(selfId), n.drivers(), n.labels(),
                new Capacity(n.capacity().memoryFreeBytes(), n.capacity().pidsFree(), n.capacity().sandboxes()), activeSandboxes,
                n.joinedAt(), n.heartbeatAt(), n.leaseExpiresAt(), Math.max(0, Duration.between(n.heartbeatAt(), now).toMillis()),
                n.checkpointDir());
    }
}
