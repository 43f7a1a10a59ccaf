package dev.paddock.app.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.MissingNode;

/**
 * A small client of the Paddock REST API over HTTP/1.1 ({@link Http1}). Error answers become {@link ApiException},
 * a server that does not answer becomes {@link UnreachableException}. The key goes in a header, never in a URL.
 */
public final class PaddockClient {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * How long an answer may take to come (its head, then a whole non-streaming body), unless set otherwise: above
     * the server's default operation timeout (60 s), so a slow driver's own 504 arrives before this gives up.
     */
    public static final Duration DEFAULT_ANSWER_TIMEOUT = Duration.ofSeconds(120);
    /** The most of a JSON answer read: more is a broken or hostile server, not an answer to hold in memory. */
    static final int MAX_ANSWER_BYTES = 64 << 20;
    /** The most of an error answer read: its JSON error is small. */
    private static final int MAX_ERROR_BYTES = 64 * 1024;

    private final String baseUrl;
    private final String apiKey;
    private final Duration answerTimeout;

    public PaddockClient(String baseUrl, String apiKey) {
        this(baseUrl, apiKey, DEFAULT_ANSWER_TIMEOUT);
    }

    /**
     * {@code answerTimeout} bounds the wait for an answer's head and, once it came, for a whole non-streaming body;
     * in a streamed body (event streams, downloads) it is the longest silence. The server writes a keep-alive into
     * every event stream after a second without events, so a live stream is never silent that long.
     */
    public PaddockClient(String baseUrl, String apiKey, Duration answerTimeout) {
        this.baseUrl = stripSlash(baseUrl);
        this.apiKey = apiKey;
        this.answerTimeout = answerTimeout;
    }

    public String baseUrl() { return baseUrl; }

    public Duration answerTimeout() { return answerTimeout; }

    /** This client with {@code extra} more time for answers: for requests the server answers only once work ends. */
    public PaddockClient waitingLonger(Duration extra) {
        return new PaddockClient(baseUrl, apiKey, answerTimeout.plus(extra));
    }

    /** A JSON request; answers the raw body of a 2xx answer (empty for 204). */
    public byte[] call(String method, String path, Map<String, ?> query, JsonNode body) {
        Map<String, String> headers = headers("application/json");
        if (body != null) headers.put("Content-Type", "application/json");
        Http1.Body payload = body == null ? Http1.Body.NONE : new Http1.Body.Bytes(Json.bytes(body));
        return complete(send(method, path, query, headers, payload));
    }

    public JsonNode json(String method, String path, Map<String, ?> query, JsonNode body) {
        return parse(call(method, path, query, body));
    }

    public JsonNode get(String path, Map<String, ?> query) { return json("GET", path, query, null); }

    public JsonNode get(String path) { return get(path, Map.of()); }

    /** Streams a binary answer (file content, archives); the caller closes the stream. */
    public InputStream download(String path, Map<String, ?> query) {
        Http1.Response res = send("GET", path, query, headers("*/*"), Http1.Body.NONE);
        if (res.status() >= 400) throw error(res.status(), readAll(res.body()));
        res.clock().eachReadWithin(answerTimeout, "while sending the download"); // a large file may take long, but never stalls
        return new FilterInputStream(res.body()) {
            @Override
            public int read() throws IOException {
                try {
                    return super.read();
                } catch (Http1.AnswerTimeoutException e) {
                    throw timeout(e);
                }
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                try {
                    return super.read(b, off, len);
                } catch (Http1.AnswerTimeoutException e) {
                    throw timeout(e);
                }
            }
        };
    }

    /** Sends a binary body (file content, archives) and answers the raw body of the answer. */
    public byte[] upload(String method, String path, Map<String, ?> query, Supplier<InputStream> content) {
        Map<String, String> headers = headers("application/json");
        headers.put("Content-Type", "application/octet-stream");
        return complete(send(method, path, query, headers, new Http1.Body.Streamed(content)));
    }

    /** POSTs a JSON body asking for {@code text/event-stream} and hands every event to {@code sink} as it arrives. */
    public void stream(String path, JsonNode body, Consumer<SseEvent> sink) {
        Map<String, String> headers = headers("text/event-stream");
        headers.put("Content-Type", "application/json");
        readEvents(send("POST", path, Map.of(), headers, new Http1.Body.Bytes(Json.bytes(body))), sink, "output stream");
    }

    /** GETs {@code path} asking for {@code text/event-stream} and hands every event to {@code sink} as it arrives. */
    public void streamGet(String path, Map<String, ?> query, Consumer<SseEvent> sink) {
        readEvents(send("GET", path, query, headers("text/event-stream"), Http1.Body.NONE), sink, "event stream");
    }

    private void readEvents(Http1.Response res, Consumer<SseEvent> sink, String what) {
        try (InputStream in = res.body()) {
            if (res.status() >= 400) throw error(res.status(), in.readNBytes(MAX_ERROR_BYTES));
            // the server sends a keep-alive after a second without events: a stream silent (or dripping) this long is dead
            res.clock().waitUpTo(answerTimeout, "in its " + what + " (not even a keep-alive)");
            SseReader.read(in, event -> {
                try {
                    sink.accept(event);
                } catch (IllegalArgumentException | JacksonException e) { // an event's JSON or base64 is not what it must be
                    throw new ApiException(200, "invalid_response", "invalid_response", "the server sent a " + clip(event.event())
                            + " event this client cannot read in its " + what);
                }
            }, res.clock()::progressed);
        } catch (Http1.AnswerTimeoutException e) {
            throw timeout(e);
        } catch (IOException e) {
            throw new UncheckedIOException("the " + what + " from " + baseUrl + " broke off: " + e.getMessage(), e);
        }
    }

    public static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) return MissingNode.getInstance();
        try {
            return Json.read(body);
        } catch (JacksonException e) {
            throw new ApiException(200, "invalid_response", "invalid_response", "the server answered something that is not JSON");
        }
    }

    private Map<String, String> headers(String accept) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Accept", accept);
        if (apiKey != null && !apiKey.isBlank()) h.put("x-api-key", apiKey);
        return h;
    }

    private Http1.Response send(String method, String path, Map<String, ?> query, Map<String, String> headers, Http1.Body body) {
        URI uri;
        try {
            uri = URI.create(baseUrl + path + queryString(query));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid server URL '" + baseUrl + "'");
        }
        if (uri.getHost() == null) throw new IllegalArgumentException("invalid server URL '" + baseUrl + "'");
        try {
            return Http1.send(uri, method, headers, body, new Http1.Timeouts(CONNECT_TIMEOUT, answerTimeout));
        } catch (Http1.AnswerTimeoutException e) {
            throw timeout(e);
        } catch (ConnectException | SocketTimeoutException | NoRouteToHostException | UnknownHostException e) {
            throw new UnreachableException(baseUrl);
        } catch (IOException e) {
            throw new UncheckedIOException("request to " + baseUrl + " failed: " + e.getMessage(), e);
        }
    }

    /** The whole body of a 2xx answer; an error answer becomes an {@link ApiException}. */
    private byte[] complete(Http1.Response res) {
        try (res) {
            if (res.status() >= 400) throw error(res.status(), res.body().readNBytes(MAX_ERROR_BYTES));
            byte[] body = res.body().readNBytes(MAX_ANSWER_BYTES);
            if (body.length == MAX_ANSWER_BYTES && res.body().read() >= 0) {
                throw new IOException("the answer is over " + (MAX_ANSWER_BYTES >> 20) + " MiB");
            }
            return body;
        } catch (Http1.AnswerTimeoutException e) {
            throw timeout(e);
        } catch (IOException e) {
            throw new UncheckedIOException("the answer from " + baseUrl + " broke off: " + e.getMessage(), e);
        }
    }

    /** A server that accepted the request and then stalled: one typed error, as for an answer this client cannot read. */
    private ApiException timeout(Http1.AnswerTimeoutException e) {
        return new ApiException(0, "timeout_error", "response_timeout", baseUrl + " stalled: " + e.getMessage()
                + " (wait longer with --http-timeout or PADDOCK_HTTP_TIMEOUT)");
    }

    private static ApiException error(int status, byte[] body) {
        try {
            JsonNode err = Json.read(body).path("error");
            if (err.isObject()) {
                return new ApiException(status, text(err, "type"), text(err, "code"),
                        err.path("message").isString() ? clipMessage(err.path("message").stringValue()) : "HTTP " + status);
            }
        } catch (JacksonException ignored) {
            // not our error shape; fall through to a generic message
        }
        return new ApiException(status, "http_error", "http_" + status, "the server answered HTTP " + status);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.path(field);
        return v.isString() ? clipMessage(v.stringValue()) : null;
    }

    /** An error's text from the server, for one line of a terminal (Main escapes what it prints). */
    private static String clipMessage(String s) {
        return s.length() > 2000 ? s.substring(0, 2000) + "…" : s;
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readNBytes(MAX_ERROR_BYTES);
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

    private static String clip(String s) {
        String printable = s.replaceAll("[^\\x20-\\x7e]", "?");
        return printable.length() > 40 ? printable.substring(0, 40) + "…" : printable;
    }

    private static String stripSlash(String url) {
        String u = url.trim();
        while (u.endsWith("/")) u = u.substring(0, u.length() - 1);
        return u;
    }
}
