package dev.paddock.core.store;

import dev.paddock.core.spi.Fence;
import java.util.Map;

/** Append-only audit events of sandboxes. Appends are fenced: a stale owner cannot write events. */
public interface EventStore {
    SandboxEvent append(String sandboxId, Fence fence, String type, Map<String, Object> data);

    /** Oldest first. */
    Page<SandboxEvent> list(String sandboxId, PageRequest page);
}
