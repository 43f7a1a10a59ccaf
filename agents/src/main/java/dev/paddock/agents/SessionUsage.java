package dev.paddock.agents;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A session's cumulative {@code usage} and {@code stats} in the SDKs' shapes: token counts summed over its model
 * requests, and the seconds it spent {@code running}. Cache writes whose lifetime the model did not report count as
 * the default 5-minute ones. {@code stats.duration_seconds} is not stored: it is the time since creation at reading
 * (frozen at the last update once the session is terminated).
 *
 * @param cacheCreation1h the part of {@code cacheCreation} written to 1-hour cache entries
 */
record SessionUsage(long inputTokens, long outputTokens, long cacheReadInputTokens, long cacheCreation, long cacheCreation1h,
                    long activeMillis) {
    static final SessionUsage NONE = new SessionUsage(0, 0, 0, 0, 0, 0);

    /** Reads the stored {@code usage} object (its {@code active_seconds} included). */
    static SessionUsage fromStored(Object stored) {
        if (!(stored instanceof Map<?, ?> u) || u.isEmpty()) return NONE;
        long cache5m = 0;
        long cache1h = 0;
        if (u.get("cache_creation") instanceof Map<?, ?> c) {
            cache5m = count(c.get("ephemeral_5m_input_tokens"));
            cache1h = count(c.get("ephemeral_1h_input_tokens"));
        }
        long active = u.get("active_seconds") instanceof Number n ? Math.round(n.doubleValue() * 1000) : 0;
        return new SessionUsage(count(u.get("input_tokens")), count(u.get("output_tokens")), count(u.get("cache_read_input_tokens")),
                cache5m + cache1h, cache1h, active);
    }

    SessionUsage plus(AgentEvents.ModelUsage request, long cache1hOfRequest, Duration active) {
        return new SessionUsage(inputTokens + request.inputTokens(), outputTokens + request.outputTokens(),
                cacheReadInputTokens + request.cacheReadInputTokens(), cacheCreation + request.cacheCreationInputTokens(),
                cacheCreation1h + cache1hOfRequest, activeMillis + active.toMillis());
    }

    /** {@code usage}: token totals and the running time. */
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
