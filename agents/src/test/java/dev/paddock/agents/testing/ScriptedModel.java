package dev.paddock.agents.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A deterministic Messages API on loopback: {@code POST /v1/messages} answers with the reply the script gives for
 * the number of tool results the request carries, so each step of a conversation gets a fixed answer. A request with
 * {@code "stream": true} gets the answer as the Messages API streams it (Server-Sent Events: {@code message_start}
 * with the input tokens, each block's start, deltas and stop, text in fragments of a few words, {@code message_delta}
 * with the stop reason and output tokens, {@code message_stop}); a reply may break off inside the stream with an
 * {@code error} event, or pause in it. Shared with other modules' tests through this module's test-jar.
 */
public final class ScriptedModel implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpServer server;
    private final CountDownLatch closed = new CountDownLatch(1);
    public final List<JsonNode> requests = new CopyOnWriteArrayList<>();

    /** {@code script} maps the count of tool_result blocks in the request to the reply's content blocks. */
    public ScriptedModel(Function<Integer, List<Map<String, Object>>> script) throws IOException {
        this((results, call) -> Reply.message(script.apply(results)));
    }

    /** A model whose every answer, an error ones included, comes from {@code script}. */
    public ScriptedModel(Script script) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/messages", exchange -> {
            JsonNode request = JSON.readTree(exchange.getRequestBody().readAllBytes());
            requests.add(request);
            int results = 0;
            for (JsonNode m : request.get("messages")) {
                if (m.get("content").isArray()) {
                    for (JsonNode b : m.get("content")) if ("tool_result".equals(b.path("type").asString())) results++;
                }
            }
            Reply r = script.reply(results, requests.size());
            if (r.delay().isPositive()) {
                try {
                    closed.await(r.delay().toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (r.status() == 200 && request.path("stream").asBoolean(false)) {
                stream(exchange, request.get("model").asString(), r);
                return;
            }
            Map<String, Object> reply;
            if (r.status() == 200) {
                reply = new LinkedHashMap<>();
                reply.put("id", "msg_" + requests.size());
                reply.put("type", "message");
                reply.put("role", "assistant");
                reply.put("model", request.get("model").asString());
                reply.put("content", r.content());
                reply.put("stop_reason", r.stopReason());
                if (r.stopDetails() != null) reply.put("stop_details", r.stopDetails());
                reply.put("usage", r.usage());
            } else {
                reply = Map.of("type", "error", "error", Map.of("type", r.errorType(), "message", "scripted " + r.status()));
            }
            byte[] body = JSON.writeValueAsBytes(reply);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            r.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            exchange.sendResponseHeaders(r.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        // one thread per request, so a slow answer holds up no other
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    /** Writes the reply as the Messages API's event stream. */
    private void stream(HttpExchange exchange, String model, Reply r) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
        r.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            Map<String, Object> message = new LinkedHashMap<>();
            message.put("id", "msg_" + requests.size());
            message.put("type", "message");
            message.put("role", "assistant");
            message.put("model", model);
            message.put("content", List.of());
            message.put("stop_reason", null);
            Map<String, Object> startUsage = new LinkedHashMap<>(r.usage());
            startUsage.put("output_tokens", 1);
            message.put("usage", startUsage);
            event(out, "message_start", Map.of("type", "message_start", "message", message));
            boolean paused = false;
            for (int i = 0; i < r.content().size(); i++) {
                Map<String, Object> block = r.content().get(i);
                if ("text".equals(block.get("type"))) {
                    event(out, "content_block_start", Map.of("type", "content_block_start", "index", i, "content_block", Map.of("type", "text", "text", "")));
                    for (String fragment : fragments((String) block.get("text"))) {
                        event(out, "content_block_delta", Map.of("type", "content_block_delta", "index", i,
                                "delta", Map.of("type", "text_delta", "text", fragment)));
                        if (!paused && r.pauseInStream().isPositive()) {
                            paused = true;
                            await(r.pauseInStream());
                        }
                    }
                } else {
                    Map<String, Object> start = new LinkedHashMap<>(block);
                    start.put("input", Map.of());
                    event(out, "content_block_start", Map.of("type", "content_block_start", "index", i, "content_block", start));
                    event(out, "content_block_delta", Map.of("type", "content_block_delta", "index", i,
                            "delta", Map.of("type", "input_json_delta", "partial_json", JSON.writeValueAsString(block.get("input")))));
                }
                event(out, "content_block_stop", Map.of("type", "content_block_stop", "index", i));
            }
            if (r.errorType() != null) {
                event(out, "error", Map.of("type", "error", "error", Map.of("type", r.errorType(), "message", "scripted error in the stream")));
                return;
            }
            Map<String, Object> delta = new LinkedHashMap<>();
            delta.put("stop_reason", r.stopReason());
            delta.put("stop_sequence", null);
            if (r.stopDetails() != null) delta.put("stop_details", r.stopDetails());
            event(out, "message_delta", Map.of("type", "message_delta", "delta", delta, "usage", r.usage()));
            event(out, "message_stop", Map.of("type", "message_stop"));
        }
    }

    /** A text in fragments of up to two words, as a model streams it. */
    static List<String> fragments(String text) {
        List<String> out = new ArrayList<>();
        String[] words = text.split("(?<= )");
        for (int i = 0; i < words.length; i += 2) out.add(i + 1 < words.length ? words[i] + words[i + 1] : words[i]);
        return out;
    }

    private static void event(OutputStream out, String name, Map<String, Object> data) throws IOException {
        out.write(("event: " + name + "\ndata: " + JSON.writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private void await(Duration wait) {
        try {
            closed.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Picks the answer to a request by its count of tool results and its number (1 for the model's first request). */
    @FunctionalInterface
    public interface Script {
        Reply reply(int toolResults, int call);
    }

    /**
     * One answer: a message (status 200) or an HTTP error of the Messages API. A status 200 with an {@code errorType}
     * is a stream that breaks off with that error after its content; {@code pauseInStream} holds a streamed answer
     * after its first text fragment.
     */
    public record Reply(int status, Map<String, String> headers, List<Map<String, Object>> content, String stopReason,
                        Map<String, Object> stopDetails, Map<String, Object> usage, String errorType, Duration delay, Duration pauseInStream) {
        private static final Map<String, Object> USAGE = Map.of("input_tokens", 10, "output_tokens", 5);

        /** A message of these blocks; it stops for tool use when it calls a tool, else at the turn's end. */
        public static Reply message(List<Map<String, Object>> content) {
            boolean toolUse = content.stream().anyMatch(b -> "tool_use".equals(b.get("type")));
            return new Reply(200, Map.of(), content, toolUse ? "tool_use" : "end_turn", null, USAGE, null, Duration.ZERO, Duration.ZERO);
        }

        /** A message with no content at all. */
        public static Reply empty(String stopReason) {
            return new Reply(200, Map.of(), List.of(), stopReason, null, USAGE, null, Duration.ZERO, Duration.ZERO);
        }

        /** A refused answer: no content, stop reason {@code refusal} and its details. */
        public static Reply refusal(String category, String explanation) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("type", "refusal");
            details.put("category", category);
            details.put("explanation", explanation);
            return new Reply(200, Map.of(), List.of(), "refusal", details, USAGE, null, Duration.ZERO, Duration.ZERO);
        }

        /** An HTTP error such as 429 {@code rate_limit_error} or 529 {@code overloaded_error}; {@code retryAfter} may be null. */
        public static Reply error(int status, String errorType, String retryAfter) {
            return new Reply(status, retryAfter == null ? Map.of() : Map.of("retry-after", retryAfter), List.of(), null, null, null, errorType, Duration.ZERO, Duration.ZERO);
        }

        /**
         * A streamed answer that starts with these blocks, then breaks off with an {@code error} event of this type
         * (such as {@code overloaded_error}).
         */
        public static Reply errorInStream(List<Map<String, Object>> content, String errorType) {
            return new Reply(200, Map.of(), content, null, null, USAGE, errorType, Duration.ZERO, Duration.ZERO);
        }

        public Reply withUsage(Map<String, Object> tokens) {
            return new Reply(status, headers, content, stopReason, stopDetails, tokens, errorType, delay, pauseInStream);
        }

        /** This answer, sent only after {@code wait} (or when the model is closed, whichever comes first). */
        public Reply after(Duration wait) {
            return new Reply(status, headers, content, stopReason, stopDetails, usage, errorType, wait, pauseInStream);
        }

        /** This answer, streamed with a pause of {@code wait} after its first text fragment (or until the model is closed). */
        public Reply pausingInStream(Duration wait) {
            return new Reply(status, headers, content, stopReason, stopDetails, usage, errorType, delay, wait);
        }
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public static Map<String, Object> text(String t) {
        return Map.of("type", "text", "text", t);
    }

    public static Map<String, Object> toolUse(String id, String name, Map<String, Object> input) {
        return Map.of("type", "tool_use", "id", id, "name", name, "input", input);
    }

    /** The text of every tool_result block of the last request, in order. */
    public List<String> lastToolResults() {
        List<String> out = new ArrayList<>();
        JsonNode last = requests.getLast();
        for (JsonNode m : last.get("messages")) {
            if (!m.get("content").isArray()) continue;
            for (JsonNode b : m.get("content")) {
                if (!"tool_result".equals(b.path("type").asString())) continue;
                JsonNode c = b.get("content");
                if (c.isString()) out.add(c.asString());
                else {
                    StringBuilder sb = new StringBuilder();
                    for (JsonNode part : c) sb.append(part.path("text").asString());
                    out.add(sb.toString());
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
    }
}
