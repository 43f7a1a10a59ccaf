package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Paddock's extension beside the budget, {@code paddock_limits}: at most this many model requests, tokens (input,
 * output, cache reads and writes together) or seconds of running time for the whole session. Each part is optional
 * (null: no limit). Like the budget, a reached limit stops the session before its next model request with the stop
 * reason {@code budget_reached}.
 */
record SessionLimits(Long maxModelRequests, Long maxTokens, Long maxActiveSeconds) {
    static final String FIELD = "paddock_limits";
    private static final Set<String> FIELDS = Set.of("max_model_requests", "max_tokens", "max_active_seconds");

    /** Checks a request's {@code paddock_limits} object. */
    static SessionLimits parse(Object value) {
        Map<String, Object> m = Fields.object(value, FIELD);
        if (m == null) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + FIELD + "' must be an object");
        Fields.allowOnly(m, FIELDS, FIELD);
        SessionLimits limits = new SessionLimits(positive(m, "max_model_requests"), positive(m, "max_tokens"), positive(m, "max_active_seconds"));
        if (limits.equals(new SessionLimits(null, null, null))) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + FIELD + "' must set at least one of " + FIELDS);
        }
        return limits;
    }

    private static Long positive(Map<String, Object> m, String field) {
        Object v = m.get(field);
        if (v == null) return null;
        if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue()) || n.longValue() < 1) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + FIELD + "." + field + "' must be a positive integer");
        }
        return n.longValue();
    }

    /** Reads stored limits; null when the session has none. */
    static SessionLimits fromStored(Object stored) {
        if (!(stored instanceof Map<?, ?> m)) return null;
        return new SessionLimits(number(m.get("max_model_requests")), number(m.get("max_tokens")), number(m.get("max_active_seconds")));
    }

    private static Long number(Object v) {
        return v instanceof Number n ? n.longValue() : null;
    }

    /** Which limit the usage has reached, for the log; null while none is. */
    String reached(SessionUsage usage) {
        if (maxModelRequests != null && usage.modelRequests() >= maxModelRequests) return "max_model_requests " + maxModelRequests;
        if (maxTokens != null && usage.totalTokens() >= maxTokens) return "max_tokens " + maxTokens;
        if (maxActiveSeconds != null && usage.activeMillis() >= maxActiveSeconds * 1000) return "max_active_seconds " + maxActiveSeconds;
        return null;
    }

    Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("max_model_requests", maxModelRequests);
        m.put("max_tokens", maxTokens);
        m.put("max_active_seconds", maxActiveSeconds);
        return m;
    }
}
