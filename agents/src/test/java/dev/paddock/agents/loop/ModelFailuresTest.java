package dev.paddock.agents.loop;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.core.JsonValue;
import com.anthropic.core.http.Headers;
import com.anthropic.errors.SseException;
import dev.paddock.agents.loop.ModelGateway.Failure;
import dev.paddock.agents.loop.ModelGateway.Failure.Kind;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An {@code error} event inside an answer's stream is judged by its error type, as the same error over HTTP would be. */
class ModelFailuresTest {
    private static SseException streamError(String type, Headers headers) {
        return SseException.builder().statusCode(200).headers(headers)
                .body(JsonValue.from(Map.of("type", "error", "error", Map.of("type", type, "message", "scripted")))).build();
    }

    @Test
    void overloadedAndRateLimitedErrorsInTheStreamAreRetriedLikeTheirHttpStatuses() {
        Failure overloaded = ModelFailures.of(streamError("overloaded_error", Headers.builder().build()));
        assertThat(overloaded.kind()).isEqualTo(Kind.OVERLOADED);
        assertThat(overloaded.retryable()).isTrue();
        assertThat(overloaded.getMessage()).contains("overloaded_error").contains("scripted");

        Failure limited = ModelFailures.of(streamError("rate_limit_error", Headers.builder().put("retry-after", "3").build()));
        assertThat(limited.kind()).isEqualTo(Kind.RATE_LIMITED);
        assertThat(limited.retryable()).isTrue();
        assertThat(limited.retryAfter()).isEqualTo(Duration.ofSeconds(3));

        assertThat(ModelFailures.of(streamError("api_error", Headers.builder().build())).retryable()).isTrue();
    }

    @Test
    void otherErrorsInTheStreamAreNotRetried() {
        Failure invalid = ModelFailures.of(streamError("invalid_request_error", Headers.builder().build()));
        assertThat(invalid.kind()).isEqualTo(Kind.REQUEST_FAILED);
        assertThat(invalid.retryable()).isFalse();
    }
}
