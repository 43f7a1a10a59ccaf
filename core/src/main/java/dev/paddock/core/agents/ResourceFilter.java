package dev.paddock.core.agents;

import java.util.List;

/**
 * Which resources of one kind a list returns. Null fields do not filter. {@code newestFirst} orders by id (ids
 * sort by creation time) descending.
 */
public record ResourceFilter(boolean includeArchived, String parentId, String refId, List<String> states, boolean newestFirst) {
    public ResourceFilter {
        states = states == null ? List.of() : List.copyOf(states);
    }

    public static ResourceFilter newestFirst(boolean includeArchived) {
        return new ResourceFilter(includeArchived, null, null, List.of(), true);
    }
}
