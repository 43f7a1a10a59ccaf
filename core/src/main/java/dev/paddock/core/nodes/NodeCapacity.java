package dev.paddock.core.nodes;

/**
 * What a node has free, as of its last heartbeat: memory (bytes available to new sandboxes), process ids, and how
 * many sandboxes it holds. Placement prefers the node with the most room.
 */
public record NodeCapacity(long memoryFreeBytes, long pidsFree, int sandboxes) {
    public static final NodeCapacity UNKNOWN = new NodeCapacity(0, 0, 0);
}
