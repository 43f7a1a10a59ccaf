package dev.paddock.app.browservm;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small REST client for the test: JSON in, status and JSON out. */
final class Http {
    static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    Http(String base) {
        this.base = base;
    }

    record Answer(int status, JsonNode body, byte[] raw) {
        String errorCode() { return body.path("error").path("code").asString(); }
        String errorMessage() { return body.path("error").path("message").asString(); }
    }

    Answer send(String method, String path, String key, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(90));
        if (key != null) b.header("x-api-key", key);
        if (json != null) b.header("Content-Type", "application/json");
        b.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        return answer(b.build());
    }

    /** A request with {@code Authorization: Bearer token}, as a sandbox tab sends it. */
    Answer bearer(String method, String path, String token) throws Exception {
        return answer(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(90))
                .header("Authorization", "Bearer " + token).method(method, HttpRequest.BodyPublishers.noBody()).build());
    }

    Answer put(String path, String key, byte[] data) throws Exception {
        return answer(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(90)).header("x-api-key", key)
                .header("Content-Type", "application/octet-stream").PUT(HttpRequest.BodyPublishers.ofByteArray(data)).build());
    }

    Answer getBytes(String path, String key) throws Exception {
        return answer(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(90)).header("x-api-key", key).GET().build());
    }

    private Answer answer(HttpRequest r) throws Exception {
        HttpResponse<byte[]> res = client.send(r, HttpResponse.BodyHandlers.ofByteArray());
        JsonNode body;
        try {
            body = res.body().length == 0 ? JSON.createObjectNode() : JSON.readTree(res.body());
        } catch (RuntimeException e) {
            body = JSON.createObjectNode();
        }
        return new Answer(res.statusCode(), body, res.body());
    }
}
