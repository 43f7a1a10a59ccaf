package dev.paddock.host;

import dev.paddock.core.Ids;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.store.SandboxRecord;

/**
 * Whose sandboxes a host acts on. A server alone on its store ({@link #alone()}) owns every sandbox the store calls
 * active; a node of a cluster ({@link #node}) owns only those its node holds, and its owner id names the node and the
 * epoch of this process, so a restarted node takes its own sandboxes over and a node that lost its lease is fenced.
 */
public record HostOwner(String ownerId, String nodeId) {
    /** The only server on its store (SQLite: the data directory's lock makes it so). */
    public static HostOwner alone() {
        return new HostOwner(Ids.newId("host"), null);
    }

    public static HostOwner node(String nodeId, long epoch) {
        return new HostOwner(Fence.owner(nodeId, epoch), nodeId);
    }

    /** True when this host looks after the sandbox: it is alone, or the sandbox is held by its node (any epoch). */
    public boolean looksAfter(SandboxRecord r) {
        return nodeId == null || nodeId.equals(r.fence().nodeId());
    }
}
