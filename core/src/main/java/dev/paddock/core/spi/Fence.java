package dev.paddock.core.spi;

/**
 * Ownership token of a sandbox: which host instance holds it and at which generation. The store swaps it with
 * compare-and-set; every mutating store call presents the fence it holds and fails with {@code fence_lost}
 * when a newer one exists. On several servers sharing one database (nodes) the owner id is
 * {@code <node id>@<epoch>}: the node holding the sandbox and the process of that node that holds it.
 */
public record Fence(String ownerId, long generation) {
    private static final char EPOCH_MARK = '@';

    public Fence {
        if (ownerId == null || ownerId.isBlank()) throw new IllegalArgumentException("ownerId is required");
        if (generation < 1) throw new IllegalArgumentException("generation starts at 1");
    }

    /** The owner id of {@code nodeId}'s process of {@code epoch}: a restarted node is the same node, a new owner. */
    public static String owner(String nodeId, long epoch) {
        if (nodeId == null || nodeId.isBlank() || nodeId.indexOf(EPOCH_MARK) >= 0) throw new IllegalArgumentException("bad node id");
        return nodeId + EPOCH_MARK + epoch;
    }

    /** The node that holds the sandbox: the owner id without its epoch (the whole id of a single server's owner). */
    public String nodeId() {
        int at = ownerId.lastIndexOf(EPOCH_MARK);
        return at < 0 ? ownerId : ownerId.substring(0, at);
    }

    public Fence next(String newOwner) {
        return new Fence(newOwner, generation + 1);
    }
}
