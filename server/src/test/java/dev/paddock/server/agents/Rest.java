package dev.paddock.server.agents;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Plain HTTP for what the SDKs cannot send (bad input, Paddock's own endpoints). */
record Rest(String baseUrl, String key) {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    static final JsonMapper JSON = JsonMapper.builder().build();

    record Answer(int status, JsonNode body) {}

    Answer post(String path, Object body, Map<String, String> headers) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).header("x-api-key", key)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
            headers.forEach(b::header);
            HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(r.statusCode(), r.body().length == 0 ? null : JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    Answer post(String path, Object body) {
        return post(path, body, Map.of());
    }

    /** Posts a user message of one text block to the session, as a client's turn. */
    Answer say(String session, String text) {
        return post("/v1/sessions/" + session + "/events", Map.of("events",
                List.of(Map.of("type", "user.message", "content", List.of(Map.of("type", "text", "text", text))))));
    }

    Answer get(String path, Map<String, String> headers) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).header("x-api-key", key).GET();
            headers.forEach(b::header);
            HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(r.statusCode(), r.body().length == 0 ? null : JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
