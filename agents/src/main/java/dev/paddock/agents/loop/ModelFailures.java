package dev.paddock.agents.loop;

import com.anthropic.core.http.Headers;
import com.anthropic.errors.AnthropicIoException;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.SseException;
import dev.paddock.agents.loop.ModelGateway.Failure;
import dev.paddock.agents.loop.ModelGateway.Failure.Kind;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * What a failed Messages API call means to the agent loop: its kind, whether it may be retried (by the status, as
 * the SDKs decide, unless the server said otherwise in {@code x-should-retry}; by the error type for an error inside
 * the stream) and how long the server asked to wait.
 */
final class ModelFailures {
    private ModelFailures() {}

    static Failure of(RuntimeException e) {
        if (e instanceof SseException s) return ofStreamError(s);
        if (e instanceof AnthropicServiceException s) {
            int status = s.statusCode();
            Kind kind = status == 429 ? Kind.RATE_LIMITED : status == 529 ? Kind.OVERLOADED : Kind.REQUEST_FAILED;
            boolean retryable = shouldRetry(s.headers(), status);
            return new Failure(kind, retryable, retryAfter(s.headers(), Instant.now()), "the model answered HTTP " + status + ": "
                    + s.apiMessage().orElse(String.valueOf(e.getMessage())), e);
        }
        if (e instanceof AnthropicIoException) {
            return new Failure(Kind.REQUEST_FAILED, true, null, "the model could not be reached: " + e.getMessage(), e);
        }
        return new Failure(Kind.REQUEST_FAILED, false, null, "the model request failed: " + e.getMessage(), e);
    }

    /**
     * An {@code error} event inside an answer's stream (the HTTP status was 200): judged by its error type as the
     * same error would be by its HTTP status ({@code overloaded_error} as a 529, {@code rate_limit_error} as a 429,
     * {@code api_error} as a 500).
     */
    private static Failure ofStreamError(SseException s) {
        String type = s.errorType().map(Object::toString).orElse("unknown");
        Kind kind = switch (type) {
            case "rate_limit_error" -> Kind.RATE_LIMITED;
            case "overloaded_error" -> Kind.OVERLOADED;
            default -> Kind.REQUEST_FAILED;
        };
        boolean retryable = kind != Kind.REQUEST_FAILED || "api_error".equals(type) || "timeout_error".equals(type);
        return new Failure(kind, retryable, retryAfter(s.headers(), Instant.now()), "the model's stream broke off with " + type + ": "
                + s.apiMessage().orElse("no message"), s);
    }

    private static boolean shouldRetry(Headers headers, int status) {
        String said = first(headers, "x-should-retry");
        if ("true".equals(said)) return true;
        if ("false".equals(said)) return false;
        return status == 408 || status == 409 || status == 429 || status >= 500;
    }

    /** {@code retry-after-ms}, else {@code retry-after} in seconds or as an HTTP date; null when absent or unreadable. */
    static Duration retryAfter(Headers headers, Instant now) {
        String ms = first(headers, "retry-after-ms");
        if (ms != null) {
            try {
                double v = Double.parseDouble(ms);
                if (v >= 0 && Double.isFinite(v)) return Duration.ofMillis((long) v);
            } catch (NumberFormatException ignored) {
                // fall through to retry-after
            }
        }
        String after = first(headers, "retry-after");
        if (after == null) return null;
        try {
            double seconds = Double.parseDouble(after);
            return seconds >= 0 && Double.isFinite(seconds) ? Duration.ofMillis((long) (seconds * 1000)) : null;
        } catch (NumberFormatException e) {
            try {
                Duration d = Duration.between(now, ZonedDateTime.parse(after, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
                return d.isNegative() ? Duration.ZERO : d;
            } catch (RuntimeException unreadable) {
                return null;
            }
        }
    }

    private static String first(Headers headers, String name) {
        List<String> values = headers.values(name);
        return values.isEmpty() ? null : values.getFirst().strip();
    }
}
