package dev.paddock.agents.loop;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.AsyncStreamResponse;
import com.anthropic.errors.AnthropicIoException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.MessageParam;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.TextBlockParam;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlockParam;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Calls the Anthropic Messages API (or anything that speaks it) through the official Java client, streaming
 * ({@code stream: true}): the answer is put together from the stream's events (its usage from {@code message_start}
 * and {@code message_delta}) while its text goes to the listener. The client does not retry: the agent loop does,
 * within its retry budget, and shows each retry as a session event; an {@code error} event inside the stream is a
 * failure like an HTTP error of the same type.
 */
public final class AnthropicModelGateway implements ModelGateway, AutoCloseable {
    /**
     * Runs the clients' completions and stream handlers, each on a virtual thread of its own. A plain executor, not an
     * ExecutorService, so closing a renewed client does not shut it: a request still under way on the old client
     * completes (or fails) rather than waiting forever for a callback that could no longer run.
     */
    private static final Executor CALLBACKS = task -> Thread.ofVirtual().name("paddock-model-callback").start(task);

    private final String baseUrl;
    private final String apiKey;
    private final AtomicReference<AnthropicClient> client;

    public AnthropicModelGateway(String baseUrl, String apiKey) {
        this.baseUrl = baseUrl;
        this.apiKey = apiKey == null || apiKey.isBlank() ? "none" : apiKey;
        this.client = new AtomicReference<>(newClient());
    }

    private AnthropicClient newClient() {
        return AnthropicOkHttpClient.builder().baseUrl(baseUrl).apiKey(apiKey).maxRetries(0).timeout(Duration.ofMinutes(10))
                .completionExecutor(CALLBACKS).streamHandlerExecutor(CALLBACKS).build();
    }

    /**
     * A request cut short on the wire (an interrupt cancels one by interrupting its thread) can leave its pooled
     * connection with an answer still to come, which the next request would read. Later requests therefore use a
     * new client, and the old one's idle connections are closed.
     */
    private void renew(AnthropicClient broken) {
        if (client.compareAndSet(broken, newClient())) broken.close();
    }

    @Override
    public Turn call(Request r, Listener listener) {
        MessageCreateParams.Builder b = MessageCreateParams.builder().model(r.model()).maxTokens(r.maxTokens());
        if (r.system() != null && !r.system().isBlank()) b.system(r.system());
        for (ToolSpec t : r.tools()) b.addTool(tool(t));
        for (ModelGateway.Message m : r.messages()) b.addMessage(message(m));
        AnthropicClient current = client.get();
        MessageAccumulator answer = MessageAccumulator.create();
        // streamed asynchronously: the text reaches the listener as it comes, and an interrupt of this thread closes
        // the stream's HTTP call itself
        AsyncStreamResponse<RawMessageStreamEvent> stream = current.async().messages().createStreaming(b.build());
        stream.subscribe(event -> {
            answer.accumulate(event);
            forward(event, listener);
        });
        try {
            stream.onCompleteFuture().get();
        } catch (InterruptedException e) {
            renew(current); // first, so that the next request already takes a fresh client
            stream.close();
            Thread.currentThread().interrupt();
            throw new CancellationException("the model request was cancelled");
        } catch (ExecutionException e) {
            RuntimeException cause = e.getCause() instanceof RuntimeException failure ? failure : new IllegalStateException(e.getCause());
            if (cause instanceof AnthropicIoException) renew(current);
            throw ModelFailures.of(cause);
        }
        // the SDK's Message, not ModelGateway's inherited one
        com.anthropic.models.messages.Message reply;
        try {
            reply = answer.message();
        } catch (IllegalStateException e) {
            renew(current);
            throw new Failure(Failure.Kind.REQUEST_FAILED, true, null, "the model's stream ended before its message was complete", e);
        }
        List<Block> blocks = new ArrayList<>();
        for (ContentBlock c : reply.content()) {
            if (c.isText()) {
                blocks.add(new Block.Text(c.asText().text()));
            } else if (c.isToolUse()) {
                var use = c.asToolUse();
                blocks.add(new Block.ToolUse(use.id(), use.name(), use._input().convert(Map.class) instanceof Map<?, ?> map ? cast(map) : Map.of()));
            }
        }
        var usage = reply.usage();
        Refusal refusal = reply.stopDetails().map(d -> new Refusal(d.category().map(Object::toString).orElse(null), d.explanation().orElse(null)))
                .orElse(null);
        return new Turn(blocks, reply.stopReason().map(Object::toString).orElse("end_turn"), refusal, usage.inputTokens(), usage.outputTokens(),
                usage.cacheReadInputTokens().orElse(0L), usage.cacheCreationInputTokens().orElse(0L),
                usage.cacheCreation().map(c -> c.ephemeral1hInputTokens()).orElse(0L));
    }

    /** Passes the text of the stream on, as it comes. */
    private static void forward(RawMessageStreamEvent event, Listener listener) {
        if (event.isContentBlockStart()) {
            var start = event.asContentBlockStart();
            if (start.contentBlock().isText()) listener.textStarted((int) start.index());
        } else if (event.isContentBlockDelta()) {
            var delta = event.asContentBlockDelta();
            if (delta.delta().isText()) listener.textDelta((int) delta.index(), delta.delta().asText().text());
        }
    }

    private static Tool tool(ToolSpec t) {
        Map<String, Object> schema = t.inputSchema() == null ? Map.of("type", "object") : t.inputSchema();
        Tool.InputSchema.Builder s = Tool.InputSchema.builder();
        Map<String, JsonValue> extra = new LinkedHashMap<>();
        schema.forEach((k, v) -> {
            switch (k) {
                case "type" -> { }
                case "properties" -> s.properties(Tool.InputSchema.Properties.builder().putAllAdditionalProperties(json(v)).build());
                case "required" -> s.required(((List<?>) v).stream().map(String::valueOf).toList());
                default -> extra.put(k, JsonValue.from(v));
            }
        });
        s.putAllAdditionalProperties(extra);
        Tool.Builder tb = Tool.builder().name(t.name()).inputSchema(s.build());
        if (t.description() != null) tb.description(t.description());
        return tb.build();
    }

    private static MessageParam message(ModelGateway.Message m) {
        List<ContentBlockParam> blocks = new ArrayList<>();
        for (Block block : m.blocks()) {
            switch (block) {
                case Block.Text t -> blocks.add(ContentBlockParam.ofText(TextBlockParam.builder().text(t.text()).build()));
                case Block.ToolUse u -> blocks.add(ContentBlockParam.ofToolUse(ToolUseBlockParam.builder()
                        .id(u.id()).name(u.name())
                        .input(ToolUseBlockParam.Input.builder().putAllAdditionalProperties(json(u.input())).build())
                        .build()));
                case Block.ToolResult r -> blocks.add(ContentBlockParam.ofToolResult(ToolResultBlockParam.builder()
                        .toolUseId(r.toolUseId())
                        .content(r.content())
                        .isError(r.isError())
                        .build()));
            }
        }
        return "assistant".equals(m.role())
                ? MessageParam.ofAssistantOfContentBlockParams(blocks)
                : MessageParam.ofUserOfContentBlockParams(blocks);
    }

    private static Map<String, JsonValue> json(Object v) {
        Map<String, JsonValue> out = new LinkedHashMap<>();
        if (v instanceof Map<?, ?> map) map.forEach((k, val) -> out.put(String.valueOf(k), JsonValue.from(val)));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Map<?, ?> m) {
        return (Map<String, Object>) m;
    }

    @Override
    public void close() {
        client.get().close();
    }
}
