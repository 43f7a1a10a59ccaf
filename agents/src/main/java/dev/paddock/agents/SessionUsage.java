package dev.paddock.agents;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A session's cumulative {@code usage} and {@code stats} in the SDKs' shapes: token counts summed over its model
 * requests, and the seconds it spent {@code running}. Cache writes whose lifetime the model did not report count as
 * the default 5-minute ones. {@code stats.duration_seconds} is not stored: it is the time since creation at reading
 * (frozen at the last update once the session is terminated). {@code list_cost} is the requests' cost at list prices
 * ({@link ModelPrices}), in cents rounded up; the row keeps it exactly, in nano-dollars, with the count of model
 * requests (neither is on the wire).
 *
 * @param cacheCreation1h the part of {@code cacheCreation} written to 1-hour cache entries
 * @param listCostNanos null once a request of a model without a list price was counted: the cost is then unknown
 */
record SessionUsage(long inputTokens, long outputTokens, long cacheReadInputTokens, long cacheCreation, long cacheCreation1h,
                    long activeMillis, Long listCostNanos, long modelRequests) {
    static final SessionUsage NONE = new SessionUsage(0, 0, 0, 0, 0, 0, 0L, 0);
    /** No usage, and a list cost that is not counted (its model has no list price, or the row predates list costs). */
    private static final SessionUsage UNCOUNTED = new SessionUsage(0, 0, 0, 0, 0, 0, null, 0);
    /** A new session's usage; its list cost is counted only when its model has a list price. */
    static SessionUsage start(boolean priced) {
        return priced ? NONE : UNCOUNTED;
    }

    private static final String COST_NANOS = "list_cost_nanos";
    private static final String MODEL_REQUESTS = "model_requests";

    /** Reads the stored {@code usage} object (its {@code active_seconds} included). */
    static SessionUsage fromStored(Object stored) {
        if (!(stored instanceof Map<?, ?> u) || u.isEmpty()) return UNCOUNTED;
        long cache5m = 0;
        long cache1h = 0;
        if (u.get("cache_creation") instanceof Map<?, ?> c) {
            cache5m = count(c.get("ephemeral_5m_input_tokens"));
            cache1h = count(c.get("ephemeral_1h_input_tokens"));
        }
        long active = u.get("active_seconds") instanceof Number n ? Math.round(n.doubleValue() * 1000) : 0;
        // a row written before list costs were counted has none: its cost is unknown
        Long cost = u.get(COST_NANOS) instanceof Number n ? n.longValue() : null;
        return new SessionUsage(count(u.get("input_tokens")), count(u.get("output_tokens")), count(u.get("cache_read_input_tokens")),
                cache5m + cache1h, cache1h, active, cost, count(u.get(MODEL_REQUESTS)));
    }

    /** Adds the running time since the last count. */
    SessionUsage plus(Duration active) {
        return new SessionUsage(inputTokens, outputTokens, cacheReadInputTokens, cacheCreation, cacheCreation1h, activeMillis + active.toMillis(),
                listCostNanos, modelRequests);
    }

    /** Adds one model request: its tokens and its list cost ({@code costNanos} empty: its model has no list price). */
    SessionUsage plus(AgentEvents.ModelUsage request, long cache1hOfRequest, Optional<Long> costNanos) {
        Long cost = listCostNanos == null || costNanos.isEmpty() ? null : Math.addExact(listCostNanos, costNanos.get());
        return new SessionUsage(inputTokens + request.inputTokens(), outputTokens + request.outputTokens(),
                cacheReadInputTokens + request.cacheReadInputTokens(), cacheCreation + request.cacheCreationInputTokens(),
                cacheCreation1h + cache1hOfRequest, activeMillis, cost, modelRequests + 1);
    }

    /** Every token the session's model requests counted: input, output, cache reads and cache writes. */
    long totalTokens() {
        return inputTokens + outputTokens + cacheReadInputTokens + cacheCreation;
    }

    /** {@code list_cost} in cents, rounded up; null when a request's model had no list price. */
    Long listCostCents() {
        return listCostNanos == null ? null : Math.ceilDiv(listCostNanos, BudgetLimit.NANOS_PER_CENT);
    }

    /** {@code usage} as the session's row keeps it: the wire's, with the exact list cost and the count of model requests. */
    Map<String, Object> toStored() {
        Map<String, Object> m = usageToWire();
        m.put(COST_NANOS, listCostNanos);
        m.put(MODEL_REQUESTS, modelRequests);
        return m;
    }

    /** {@code usage}: token totals, the running time and the list cost. */
    Map<String, Object> usageToWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("input_tokens", inputTokens);
        m.put("output_tokens", outputTokens);
        m.put("cache_read_input_tokens", cacheReadInputTokens);
        Map<String, Object> cache = new LinkedHashMap<>();
        cache.put("ephemeral_5m_input_tokens", cacheCreation - cacheCreation1h);
        cache.put("ephemeral_1h_input_tokens", cacheCreation1h);
        m.put("cache_creation", cache);
        m.put("active_seconds", activeSeconds());
        Long cents = listCostCents();
        if (cents != null) m.put("list_cost", BudgetLimit.money(cents));
        return m;
    }

    /** {@code stats}: the running time, and the time since creation when {@code createdAt} and {@code until} are given. */
    Map<String, Object> statsToWire(String createdAt, Instant until) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("active_seconds", activeSeconds());
        if (createdAt != null && until != null) {
            long millis = Math.max(0, Duration.between(Instant.parse(createdAt), until).toMillis());
            m.put("duration_seconds", millis / 1000.0);
        }
        return m;
    }

    private double activeSeconds() {
        return activeMillis / 1000.0;
    }

    private static long count(Object v) {
        return v instanceof Number n ? n.longValue() : 0;
    }
}
