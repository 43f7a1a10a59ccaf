package dev.paddock.app.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small client of the Paddock REST API over {@code java.net.http}. Error answers become {@link ApiException},
 * a server that does not answer becomes {@link UnreachableException}. The key goes in a header, never in a URL.
 */
public final class PaddockClient {
    public static final JsonMapper JSON = JsonMapper.builder().build();

    private final String baseUrl;
    private final String apiKey;
    private final HttpClient http;

    public PaddockClient(String baseUrl, String apiKey) {
        this.baseUrl = stripSlash(baseUrl);
        this.apiKey = apiKey;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    public String baseUrl() { return baseUrl; }

    /** A JSON request; answers the raw body of a 2xx answer (empty for 204). */
    public byte[] call(String method, String path, Map<String, ?> query, JsonNode body) {
        HttpRequest.BodyPublisher publisher = body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body));
        HttpRequest.Builder req = request(path, query).method(method, publisher).header("Accept", "application/json");
        if (body != null) req.header("Content-Type", "application/json");
        HttpResponse<byte[]> res = send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (res.statusCode() >= 400) throw error(res.statusCode(), res.body());
        return res.body();
    }

    public JsonNode json(String method, String path, Map<String, ?> query, JsonNode body) {
        return parse(call(method, path, query, body));
    }

    public JsonNode get(String path, Map<String, ?> query) { return json("GET", path, query, null); }

    public JsonNode get(String path) { return get(path, Map.of()); }

    /** Streams a binary answer (file content, archives); the caller closes the stream. */
    public InputStream download(String path, Map<String, ?> query) {
        HttpRequest req = request(path, query).GET().header("Accept", "*/*").build();
        HttpResponse<InputStream> res = send(req, HttpResponse.BodyHandlers.ofInputStream());
        if (res.statusCode() >= 400) {
            throw error(res.statusCode(), readAll(res.body()));
        }
        return res.body();
    }

    /** Sends a binary body (file content, archives) and answers the raw body of the answer. */
    public byte[] upload(String method, String path, Map<String, ?> query, Supplier<InputStream> content) {
        HttpRequest req = request(path, query)
                .method(method, HttpRequest.BodyPublishers.ofInputStream(content))
                .header("Content-Type", "application/octet-stream")
                .header("Accept", "application/json")
                .build();
        HttpResponse<byte[]> res = send(req, HttpResponse.BodyHandlers.ofByteArray());
        if (res.statusCode() >= 400) throw error(res.statusCode(), res.body());
        return res.body();
    }

    /** POSTs a JSON body asking for {@code text/event-stream} and hands every event to {@code sink} as it arrives. */
    public void stream(String path, JsonNode body, Consumer<SseEvent> sink) {
        HttpRequest req = request(path, Map.of())
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream")
                .build();
        HttpResponse<InputStream> res = send(req, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = res.body()) {
            if (res.statusCode() >= 400) throw error(res.statusCode(), in.readAllBytes());
            SseReader.read(in, sink);
        } catch (IOException e) {
            throw new UncheckedIOException("the output stream from " + baseUrl + " broke off: " + e.getMessage(), e);
        }
    }

    /** GETs {@code path} asking for {@code text/event-stream} and hands every event to {@code sink} as it arrives. */
    public void streamGet(String path, Map<String, ?> query, Consumer<SseEvent> sink) {
        HttpRequest req = request(path, query).GET().header("Accept", "text/event-stream").build();
        HttpResponse<InputStream> res = send(req, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = res.body()) {
            if (res.statusCode() >= 400) throw error(res.statusCode(), in.readAllBytes());
            SseReader.read(in, sink);
        } catch (IOException e) {
            throw new UncheckedIOException("the event stream from " + baseUrl + " broke off: " + e.getMessage(), e);
        }
    }

    public static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) return JSON.missingNode();
        try {
            return JSON.readTree(body);
        } catch (JacksonException e) {
            throw new ApiException(200, "invalid_response", "invalid_response", "the server answered something that is not JSON");
        }
    }

    private HttpRequest.Builder request(String path, Map<String, ?> query) {
        URI uri;
        try {
            uri = URI.create(baseUrl + path + queryString(query));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid server URL '" + baseUrl + "'");
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(uri);
        if (apiKey != null && !apiKey.isBlank()) b.header("x-api-key", apiKey);
        return b;
    }

    private <T> HttpResponse<T> send(HttpRequest req, HttpResponse.BodyHandler<T> handler) {
        try {
            return http.send(req, handler);
        } catch (ConnectException | HttpConnectTimeoutException | ClosedChannelException e) {
            throw new UnreachableException(baseUrl);
        } catch (IOException e) {
            if (e.getCause() instanceof ConnectException) throw new UnreachableException(baseUrl);
            throw new UncheckedIOException("request to " + baseUrl + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException("interrupted", new IOException(e));
        }
    }

    private static ApiException error(int status, byte[] body) {
        try {
            JsonNode err = JSON.readTree(body).path("error");
            if (err.isObject()) {
                return new ApiException(status, text(err, "type"), text(err, "code"),
                        err.path("message").isString() ? err.path("message").stringValue() : "HTTP " + status);
            }
        } catch (JacksonException ignored) {
            // not our error shape; fall through to a generic message
        }
        return new ApiException(status, "http_error", "http_" + status, "the server answered HTTP " + status);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.path(field);
        return v.isString() ? v.stringValue() : null;
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readNBytes(64 * 1024);
        } catch (IOException e) {
            return new byte[0];
        }
    }

    static String queryString(Map<String, ?> query) {
        if (query == null || query.isEmpty()) return "";
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, ?> e : new LinkedHashMap<>(query).entrySet()) {
            if (e.getValue() == null) continue;
            sb.append(sb.isEmpty() ? '?' : '&')
                    .append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(String.valueOf(e.getValue()), StandardCharsets.UTF_8));
        }
        return sb.toString();
    }

    private static String stripSlash(String url) {
        String u = url.trim();
        while (u.endsWith("/")) u = u.substring(0, u.length() - 1);
        return u;
    }
}
