package dev.paddock.agents.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
 * the number of tool results the request carries, so each step of a conversation gets a fixed answer. Shared with
 * other modules' tests through this module's test-jar.
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

    /** Picks the answer to a request by its count of tool results and its number (1 for the model's first request). */
    @FunctionalInterface
    public interface Script {
        Reply reply(int toolResults, int call);
    }

    /** One answer: a message (status 200) or an HTTP error of the Messages API. */
    public record Reply(int status, Map<String, String> headers, List<Map<String, Object>> content, String stopReason,
                        Map<String, Object> stopDetails, Map<String, Object> usage, String errorType, Duration delay) {
        private static final Map<String, Object> USAGE = Map.of("input_tokens", 10, "output_tokens", 5);

        /** A message of these blocks; it stops for tool use when it calls a tool, else at the turn's end. */
        public static Reply message(List<Map<String, Object>> content) {
            boolean toolUse = content.stream().anyMatch(b -> "tool_use".equals(b.get("type")));
            return new Reply(200, Map.of(), content, toolUse ? "tool_use" : "end_turn", null, USAGE, null, Duration.ZERO);
        }

        /** A message with no content at all. */
        public static Reply empty(String stopReason) {
            return new Reply(200, Map.of(), List.of(), stopReason, null, USAGE, null, Duration.ZERO);
        }

        /** A refused answer: no content, stop reason {@code refusal} and its details. */
        public static Reply refusal(String category, String explanation) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("type", "refusal");
            details.put("category", category);
            details.put("explanation", explanation);
            return new Reply(200, Map.of(), List.of(), "refusal", details, USAGE, null, Duration.ZERO);
        }

        /** An HTTP error such as 429 {@code rate_limit_error} or 529 {@code overloaded_error}; {@code retryAfter} may be null. */
        public static Reply error(int status, String errorType, String retryAfter) {
            return new Reply(status, retryAfter == null ? Map.of() : Map.of("retry-after", retryAfter), List.of(), null, null, null, errorType, Duration.ZERO);
        }

        public Reply withUsage(Map<String, Object> tokens) {
            return new Reply(status, headers, content, stopReason, stopDetails, tokens, errorType, delay);
        }

        /** This answer, sent only after {@code wait} (or when the model is closed, whichever comes first). */
        public Reply after(Duration wait) {
            return new Reply(status, headers, content, stopReason, stopDetails, usage, errorType, wait);
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
