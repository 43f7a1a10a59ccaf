package dev.paddock.core.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/** Cursor pagination as in the Managed Agents API: at most one of afterId / beforeId. */
public record PageRequest(int limit, String afterId, String beforeId) {
    public static final int MAX_LIMIT = 1000;
    public static final int DEFAULT_LIMIT = 20;

    public PageRequest {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new PaddockException(ErrorCode.INVALID_LIMIT, "limit must be between 1 and " + MAX_LIMIT + ", got " + limit);
        }
        if (afterId != null && beforeId != null) {
            throw new PaddockException(ErrorCode.INVALID_CURSOR, "give after_id or before_id, not both");
        }
    }

    public static PageRequest first(int limit) {
        return new PageRequest(limit, null, null);
    }
}
