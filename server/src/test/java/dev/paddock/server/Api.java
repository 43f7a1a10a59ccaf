package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small HTTP client of the API for tests; {@code key} may be null for unauthenticated calls. */
final class Api {
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    final String base;
    final String key;

    Api(int port, String key) {
        this.base = "http://127.0.0.1:" + port;
        this.key = key;
    }

    record Resp(int status, HttpHeaders headers, byte[] bytes) {
        String body() {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        JsonNode json() {
            return JSON.readTree(bytes);
        }

        /** Asserts the API's error shape, and that nothing of the server's internals leaked. */
        Resp error(int expectedStatus, String type, String code) {
            assertThat(status).as("status of %s", body()).isEqualTo(expectedStatus);
            assertThat(headers.firstValue("content-type").orElse("")).startsWith("application/json");
            JsonNode j = json();
            assertThat(j.path("type").asString()).isEqualTo("error");
            assertThat(j.path("error").path("type").asString()).as(body()).isEqualTo(type);
            if (code != null) assertThat(j.path("error").path("code").asString()).as(body()).isEqualTo(code);
            assertThat(j.path("error").path("message").asString()).isNotBlank();
            assertNoInternals();
            return this;
        }

        String message() {
            return json().path("error").path("message").asString();
        }

        void assertNoInternals() {
            assertThat(body()).doesNotContain("Exception").doesNotContain("at dev.paddock").doesNotContain("java.")
                    .doesNotContain("tools.jackson").doesNotContain("dev.paddock.server");
        }
    }

    HttpRequest.Builder request(String method, String path, HttpRequest.BodyPublisher body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .method(method, body);
        if (key != null) b.header("x-api-key", key);
        return b;
    }

    Resp send(HttpRequest.Builder b) {
        try {
            HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Resp(r.statusCode(), r.headers(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<InputStream> stream(HttpRequest.Builder b) throws IOException, InterruptedException {
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    Resp call(String method, String path, String json) {
        var body = json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json);
        var b = request(method, path, body);
        if (json != null) b.header("content-type", "application/json");
        return send(b);
    }

    Resp get(String path) { return call("GET", path, null); }

    Resp post(String path, String json) { return call("POST", path, json); }

    Resp delete(String path) { return call("DELETE", path, null); }

    Resp put(String path, byte[] bytes) {
        return send(request("PUT", path, HttpRequest.BodyPublishers.ofByteArray(bytes)).header("content-type", "application/octet-stream"));
    }

    /** Creates a sandbox and returns its id, asserting a 201. */
    String createSandbox() {
        Resp r = post("/v1/sandboxes", "{}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().path("id").asString();
    }
}
