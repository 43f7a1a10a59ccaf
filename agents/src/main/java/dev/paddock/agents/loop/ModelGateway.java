package dev.paddock.agents.loop;

import java.util.List;
import java.util.Map;

/** One call to a model: the conversation so far in, the model's next turn out. */
public interface ModelGateway {
    /** A tool the model may call. {@code inputSchema} is a JSON schema object. */
    record ToolSpec(String name, String description, Map<String, Object> inputSchema) {}

    /** A message: role {@code user} or {@code assistant}. */
    record Message(String role, List<Block> blocks) {}

    record Request(String model, String system, List<ToolSpec> tools, List<Message> messages, long maxTokens) {}

    /** Blocks are text or tool calls. */
    record Turn(List<Block> blocks, String stopReason, long inputTokens, long outputTokens,
                long cacheReadInputTokens, long cacheCreationInputTokens) {}

    Turn call(Request request);
}
