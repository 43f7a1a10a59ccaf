package dev.paddock.agents.worker;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP side of a self-hosted worker: the environment work queue and the session event calls, authenticated
 * with the environment key as a bearer token. The same protocol is served by Paddock and by Anthropic's API.
 */
final class QueueClient {
    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String BETA = "managed-agents-2026-04-01";
    /** Events per page when following a session: a read re-reads at most this many. */
    private static final int EVENT_PAGE = 100;
    /** How long an answer's head (and a whole JSON answer) may take: a server that accepts and never answers must not hold a worker. */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String baseUrl;
    private final String key;
    private final String workerId;

    /** An answer that is not 2xx. */
    static final class HttpFailure extends RuntimeException {
        final int status;

        HttpFailure(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    QueueClient(String baseUrl, String key, String workerId) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.key = key;
        this.workerId = workerId;
    }

    Optional<JsonNode> poll(String env, long blockMs) {
        JsonNode n = call("GET", "/v1/environments/" + env + "/work/poll?block_ms=" + blockMs, null, Duration.ofMillis(blockMs + 15_000));
        return n == null || n.isNull() ? Optional.empty() : Optional.of(n);
    }

    void ack(String env, String work) {
        call("POST", "/v1/environments/" + env + "/work/" + work + "/ack", Map.of(), null);
    }

    JsonNode heartbeat(String env, String work, String expected) {
        return call("POST", "/v1/environments/" + env + "/work/" + work + "/heartbeat?expected_last_heartbeat="
                + URLEncoder.encode(expected, StandardCharsets.UTF_8), Map.of(), Duration.ofSeconds(15));
    }

    void stop(String env, String work) {
        call("POST", "/v1/environments/" + env + "/work/" + work + "/stop", Map.of("force", true), null);
    }

    JsonNode session(String id) {
        return call("GET", "/v1/sessions/" + id, null, null);
    }

    /** A skill version the session pins ({@code GET /v1/skills/{id}/versions/{version}}). */
    JsonNode skillVersion(String skillId, String version) {
        return call("GET", "/v1/skills/" + URLEncoder.encode(skillId, StandardCharsets.UTF_8) + "/versions/"
                + URLEncoder.encode(version, StandardCharsets.UTF_8), null, null);
    }

    /** The version's files as a zip archive; the caller closes the stream. */
    InputStream skillContent(String skillId, String version) throws IOException {
        HttpRequest r = request("/v1/skills/" + URLEncoder.encode(skillId, StandardCharsets.UTF_8) + "/versions/"
                + URLEncoder.encode(version, StandardCharsets.UTF_8) + "/content", Duration.ofMinutes(2)).GET().build();
        try {
            HttpResponse<InputStream> resp = http.send(r, HttpResponse.BodyHandlers.ofInputStream());
            if (resp.statusCode() / 100 != 2) {
                try (InputStream in = resp.body()) {
                    throw new HttpFailure(resp.statusCode(), "skill download refused: HTTP " + resp.statusCode());
                }
            }
            return resp.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HttpFailure(0, "interrupted");
        }
    }

    /** One page of the session's events, oldest first; {@code page} is a cursor from {@code next_page}, null the first. */
    JsonNode eventPage(String session, String page) {
        return call("GET", "/v1/sessions/" + session + "/events?limit=" + EVENT_PAGE + (page == null ? "" : "&page=" + page), null, null);
    }

    void send(String session, Map<String, Object> event) {
        call("POST", "/v1/sessions/" + session + "/events", Map.of("events", List.of(event)), null);
    }

    /** Opens the session's event stream; the caller reads SSE lines from it and closes it. */
    InputStream stream(String session) throws IOException, InterruptedException {
        HttpRequest r = request("/v1/sessions/" + session + "/events/stream", ANSWER_TIMEOUT).header("Accept", "text/event-stream").GET().build();
        HttpResponse<InputStream> resp = http.send(r, HttpResponse.BodyHandlers.ofInputStream());
        if (resp.statusCode() / 100 != 2) {
            try (InputStream in = resp.body()) {
                throw new HttpFailure(resp.statusCode(), "event stream refused: HTTP " + resp.statusCode());
            }
        }
        return resp.body();
    }

    private JsonNode call(String method, String path, Object body, Duration timeout) {
        HttpRequest.Builder b = request(path, timeout);
        if (body == null) b.method(method, HttpRequest.BodyPublishers.noBody());
        else b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
        try {
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() / 100 != 2) {
                String message = "HTTP " + r.statusCode();
                try {
                    message += ": " + JSON.readTree(r.body()).path("error").path("message").asString();
                } catch (RuntimeException ignored) {
                    // not our error shape; the status says enough
                }
                throw new HttpFailure(r.statusCode(), method + " " + path.replaceAll("\\?.*", "") + " failed with " + message);
            }
            return r.body().length == 0 ? null : JSON.readTree(r.body());
        } catch (IOException e) {
            throw new HttpFailure(0, method + " " + path.replaceAll("\\?.*", "") + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HttpFailure(0, "interrupted");
        }
    }

    private HttpRequest.Builder request(String path, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header("Authorization", "Bearer " + key)
                .header("anthropic-version", "2023-06-01")
                .header("anthropic-beta", BETA)
                .header("Anthropic-Worker-ID", workerId);
        return b.timeout(timeout == null ? ANSWER_TIMEOUT : timeout);
    }
}
