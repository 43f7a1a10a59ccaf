package dev.paddock.agents.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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
    public final List<JsonNode> requests = new CopyOnWriteArrayList<>();

    /** {@code script} maps the count of tool_result blocks in the request to the reply's content blocks. */
    public ScriptedModel(Function<Integer, List<Map<String, Object>>> script) throws IOException {
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
            List<Map<String, Object>> content = script.apply(results);
            boolean toolUse = content.stream().anyMatch(b -> "tool_use".equals(b.get("type")));
            Map<String, Object> reply = Map.of(
                    "id", "msg_" + requests.size(), "type", "message", "role", "assistant", "model", request.get("model").asString(),
                    "content", content, "stop_reason", toolUse ? "tool_use" : "end_turn",
                    "usage", Map.of("input_tokens", 10, "output_tokens", 5));
            byte[] body = JSON.writeValueAsBytes(reply);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
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
        server.stop(0);
    }
}
