package dev.paddock.core.nodes;

import java.util.Locale;

/**
 * A node's standing in the cluster: {@code active} takes new sandboxes; {@code draining} keeps serving what it holds
 * but takes no new placements; {@code lost} stopped renewing its lease and a surviving node failed its sandboxes.
 */
public enum NodeState {
    ACTIVE, DRAINING, LOST;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static NodeState fromWire(String s) {
        return valueOf(s.toUpperCase(Locale.ROOT));
    }
}
