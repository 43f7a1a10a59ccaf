package dev.paddock.agents.loop;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** One call to a model: the conversation so far in, the model's next turn out (streamed to a {@link Listener} as it comes). */
public interface ModelGateway {
    /** A tool the model may call. {@code inputSchema} is a JSON schema object. */
    record ToolSpec(String name, String description, Map<String, Object> inputSchema) {}

    /** A message: role {@code user} or {@code assistant}. */
    record Message(String role, List<Block> blocks) {}

    record Request(String model, String system, List<ToolSpec> tools, List<Message> messages, long maxTokens) {}

    /** Why the model refused to answer; both parts may be null (no named category, no explanation). */
    record Refusal(String category, String explanation) {}

    /**
     * Blocks are text or tool calls; {@code refusal} is set when the stop reason is {@code refusal}.
     * {@code cacheCreation1hInputTokens} is the part of {@code cacheCreationInputTokens} written to 1-hour cache entries.
     */
    record Turn(List<Block> blocks, String stopReason, Refusal refusal, long inputTokens, long outputTokens,
                long cacheReadInputTokens, long cacheCreationInputTokens, long cacheCreation1hInputTokens) {
        public boolean refused() {
            return "refusal".equals(stopReason);
        }
    }

    /**
     * A model request that failed: rate-limited (429), overloaded (529) or otherwise. {@code retryable} says whether
     * the same request may succeed later; {@code retryAfter} is the wait the model's server asked for, or null.
     */
    final class Failure extends RuntimeException {
        /** The {@code session.error} type of each kind of failure. */
        public enum Kind {
            RATE_LIMITED("model_rate_limited_error"),
            OVERLOADED("model_overloaded_error"),
            REQUEST_FAILED("model_request_failed_error");

            private final String errorType;

            Kind(String errorType) {
                this.errorType = errorType;
            }

            public String errorType() {
                return errorType;
            }
        }

        private final Kind kind;
        private final boolean retryable;
        private final Duration retryAfter;

        public Failure(Kind kind, boolean retryable, Duration retryAfter, String message, Throwable cause) {
            super(message, cause);
            this.kind = kind;
            this.retryable = retryable;
            this.retryAfter = retryAfter;
        }

        public Kind kind() { return kind; }

        public boolean retryable() { return retryable; }

        public Duration retryAfter() { return retryAfter; }
    }

    /**
     * What the model says while it answers, for live previews only: the {@link Turn} it returns is what counts.
     * {@code index} is the block's place among all of the answer's content blocks.
     */
    interface Listener {
        Listener NONE = new Listener() {
            @Override public void textStarted(int index) { }
            @Override public void textDelta(int index, String text) { }
        };

        /** A text block starts. */
        void textStarted(int index);

        /** More text of the block that started at {@code index}. */
        void textDelta(int index, String text);
    }

    /** Throws {@link Failure} when the model does not answer. */
    Turn call(Request request, Listener listener);
}
