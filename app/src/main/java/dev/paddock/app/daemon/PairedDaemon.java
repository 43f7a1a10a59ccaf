package dev.paddock.app.daemon;

import dev.paddock.core.Text;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A paired daemon: trades a pairing code for a runtime token, holds an outbound WebSocket to the server's relay
 * (the one sandbox tabs use), says hello as a daemon (host, driver, capacity) and runs the ops the server sends
 * with {@link LocalSandboxes}. A dropped connection is retried with backoff (0.5 s doubling to 10 s) with the same
 * token, so the server keeps its sandboxes bound to it, for at most {@code maxOffline}; then, or on {@link #close},
 * it ends its sandboxes and stops. The token lives in this object only: it is never printed or logged.
 */
public final class PairedDaemon implements AutoCloseable {
    /** Where the daemon reports what it does (stdout in the CLI); never given the token. */
    public interface Log extends Consumer<String> {}

    /** Settings: the server's base URL, the host name it shows, how long it may stay disconnected before giving up. */
    public record Settings(URI server, String hostName, Duration maxOffline) {}

    static final String RELAY_PATH = "/v1/runtimes/relay";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Op data a server may have in flight at once (chunks waiting for their op). */
    private static final long MAX_PENDING_BYTES = 80L << 20;
    private static final int MAX_BAD_FRAMES = 50;

    private final Settings settings;
    private final LocalSandboxes sandboxes;
    private final Log log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Map<String, PendingData> chunks = new ConcurrentHashMap<>();
    private volatile String token;
    private volatile String runtimeId;
    private volatile WebSocket socket;
    private volatile boolean closing;
    private volatile long lastHeard = System.nanoTime();
    private volatile int badFrames;
    private volatile long heartbeatSeconds = 25;
    private long pendingBytes;

    public PairedDaemon(Settings settings, LocalSandboxes sandboxes, Log log) {
        this.settings = settings;
        this.sandboxes = sandboxes;
        this.log = log;
    }

    public String runtimeId() { return runtimeId; }

    /** Trades the one-time code for this runtime's id and token (POST /v1/runtimes/exchange). */
    public void pair(String code) throws IOException, InterruptedException {
        String body = JSON.writeValueAsString(Map.of("code", code, "kind", "daemon"));
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(settings.server().resolve("/v1/runtimes/exchange"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode n;
        try {
            n = JSON.readTree(res.body().isEmpty() ? "{}" : res.body());
        } catch (JacksonException e) {
            throw new PairingRefused("the server answered HTTP " + res.statusCode() + " without Paddock's JSON; is --server a Paddock server?");
        }
        if (res.statusCode() != 201) {
            String message = n.path("error").path("message").asString("the server answered HTTP " + res.statusCode());
            throw new PairingRefused(Text.clip(message, 300) + " (" + n.path("error").path("code").asString("http_" + res.statusCode()) + ")");
        }
        String t = n.path("runtime_token").asString("");
        String id = n.path("runtime_id").asString("");
        if (!t.startsWith("prt_") || !id.startsWith("rt_")) throw new PairingRefused("the server's answer has no runtime token");
        token = t;
        runtimeId = id;
    }

    /** Refused by the server: a bad or used code, a revoked token. Retrying does not help. */
    public static final class PairingRefused extends IOException {
        PairingRefused(String message) { super(message); }
    }

    /**
     * Connects and serves until {@link #close} or until the server cannot be reached for {@code maxOffline}.
     * Answers true when stopped by close, false when it gave up.
     */
    public boolean run() throws InterruptedException {
        if (token == null) throw new IllegalStateException("pair first");
        Thread.ofPlatform().daemon().name("paddock-daemon-heartbeat").start(this::beat);
        long backoff = 500;
        long offlineSince = System.nanoTime();
        while (!closing) {
            Session s = connect();
            if (s != null) {
                backoff = 500;
                log.accept("connected to " + settings.server() + " as runtime " + runtimeId);
                s.closed.await();
                if (closing) break;
                if (s.refused) {
                    log.accept("the server refused this runtime (" + s.reason + "); pair again with a new code");
                    return false;
                }
                log.accept("connection lost (" + s.reason + "); reconnecting");
                offlineSince = System.nanoTime();
            }
            if (System.nanoTime() - offlineSince > settings.maxOffline().toNanos()) {
                log.accept("the server could not be reached for " + settings.maxOffline().toSeconds() + " s; giving up");
                return false;
            }
            if (stopped.await(backoff, TimeUnit.MILLISECONDS)) break;
            backoff = Math.min(backoff * 2, 10_000);
        }
        return true;
    }

    /** One WebSocket: null when it could not be opened (the loop retries). */
    private Session connect() {
        Session s = new Session();
        URI base = settings.server();
        String scheme = "https".equals(base.getScheme()) ? "wss" : "ws";
        URI relay = URI.create(scheme + "://" + base.getRawAuthority() + RELAY_PATH);
        try {
            socket = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
                    .header("Authorization", "Bearer " + token) // not the query string: URLs end up in logs
                    .buildAsync(relay, s).get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            int status = cause instanceof WebSocketHandshakeException h ? h.getResponse().statusCode() : 0;
            log.accept("cannot connect to " + relay + ": " + (status > 0 ? "HTTP " + status : Text.clip(cause.toString().replace(token, "prt_…"), 200)));
            if (status == 401 || status == 403) {
                s.refused = true;
                s.reason = "the runtime token is unknown or revoked";
                s.closed.countDown();
                return s;
            }
            return null;
        }
        lastHeard = System.nanoTime();
        chunks.clear();
        synchronized (this) { pendingBytes = 0; }
        send(ServerFrames.hello(settings.hostName(), sandboxes.driverId(), sandboxes.capacity()));
        return s;
    }

    /**
     * The server sends a heartbeat every {@code heartbeat_seconds} (its welcome says how often), which the daemon
     * answers; a daemon that hears nothing for a heartbeat sends one itself, and after three drops the socket.
     */
    private void beat() {
        while (!closing) {
            try {
                if (stopped.await(5, TimeUnit.SECONDS)) return;
            } catch (InterruptedException e) {
                return;
            }
            WebSocket ws = socket;
            if (ws == null || ws.isOutputClosed()) continue;
            long silent = System.nanoTime() - lastHeard;
            if (silent > TimeUnit.SECONDS.toNanos(3 * heartbeatSeconds)) {
                ws.abort(); // the server stopped answering (a dead network path): reconnect
                continue;
            }
            if (silent > TimeUnit.SECONDS.toNanos(heartbeatSeconds)) send(ServerFrames.heartbeat());
        }
    }

    private void onText(String text) {
        lastHeard = System.nanoTime();
        ServerFrames.Inbound f;
        try {
            f = ServerFrames.parse(text);
        } catch (ServerFrames.BadFrame e) {
            log.accept("refused a frame from the server: " + e.getMessage());
            if (e.requestId != null) send(ServerFrames.failed(e.requestId, "malformed_op", e.getMessage()));
            if (++badFrames >= MAX_BAD_FRAMES) {
                WebSocket ws = socket;
                if (ws != null) ws.abort();
            }
            return;
        }
        switch (f) {
            case ServerFrames.Welcome w -> {
                runtimeId = w.runtimeId();
                heartbeatSeconds = w.heartbeatSeconds();
            }
            case ServerFrames.Heartbeat h -> send(ServerFrames.heartbeat());
            case ServerFrames.ErrorFrame e -> log.accept("server: " + e.code() + ": " + Text.clip(e.message(), 200));
            case ServerFrames.OpChunk c -> chunk(c);
            case ServerFrames.Op op -> op(op);
        }
    }

    private void chunk(ServerFrames.OpChunk c) {
        synchronized (this) {
            pendingBytes += c.data().length;
            if (pendingBytes > MAX_PENDING_BYTES) {
                chunks.clear();
                pendingBytes = 0;
                log.accept("refused op data: more than " + (MAX_PENDING_BYTES >> 20) + " MiB pending");
                return;
            }
        }
        PendingData p = chunks.computeIfAbsent(c.requestId(), k -> new PendingData());
        if (!p.add(c)) {
            chunks.remove(c.requestId());
            send(ServerFrames.failed(c.requestId(), "malformed_op", "op data chunk " + c.seq() + " arrived out of order"));
        }
    }

    private void op(ServerFrames.Op op) {
        if (op.op().equals("kill")) {
            sandboxes.kill(op.args());
            return;
        }
        PendingData p = chunks.remove(op.requestId());
        byte[] data = null;
        JsonNode announced = op.args().get("chunks");
        if (announced != null) {
            int parts = p == null ? 0 : p.count();
            if (!announced.isIntegralNumber() || announced.intValue() != parts) {
                send(ServerFrames.failed(op.requestId(), "malformed_op", "op data chunks are missing"));
                return;
            }
            data = p == null ? new byte[0] : p.bytes();
            synchronized (this) { pendingBytes = Math.max(0, pendingBytes - data.length); }
        }
        byte[] in = data;
        // each op on its own thread: a long command must not hold up the socket or other sandboxes' ops
        Thread.ofVirtual().name("paddock-daemon-op").start(() -> {
            try {
                LocalSandboxes.Answer a = sandboxes.run(op, in);
                for (String frame : ServerFrames.result(op.requestId(), a.fields(), a.streams())) send(frame);
            } catch (LocalSandboxes.Refused r) {
                send(ServerFrames.failed(op.requestId(), r.code, r.getMessage() == null ? r.code : r.getMessage()));
            } catch (RuntimeException e) {
                log.accept(op.op() + " failed: " + Text.clip(e.toString(), 200));
                send(ServerFrames.failed(op.requestId(), "engine_error", "the daemon could not run " + op.op()));
            }
        });
    }

    /** One text frame at a time (the JDK's WebSocket allows one outstanding send). */
    private synchronized void send(String frame) {
        WebSocket ws = socket;
        if (ws == null || ws.isOutputClosed()) return;
        try {
            ws.sendText(frame, true).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            ws.abort();
        }
    }

    /** Stops: closes the socket (the server fails its sandboxes' next ops at once) and ends every local sandbox. */
    @Override
    public void close() {
        if (closing) return;
        closing = true;
        stopped.countDown();
        WebSocket ws = socket;
        if (ws != null) {
            try {
                ws.sendClose(WebSocket.NORMAL_CLOSURE, "daemon stopping").get(2, TimeUnit.SECONDS);
            } catch (Exception e) {
                ws.abort();
            }
        }
        sandboxes.close();
    }

    /** Op data chunks of one request, in order. */
    private static final class PendingData {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private int next;

        synchronized boolean add(ServerFrames.OpChunk c) {
            if (c.seq() != next) return false;
            next++;
            bytes.write(c.data(), 0, c.data().length);
            return true;
        }

        synchronized int count() { return next; }

        synchronized byte[] bytes() { return bytes.toByteArray(); }
    }

    /** The listener of one WebSocket: joins partial messages, hands whole frames over, notes the close. */
    private final class Session implements WebSocket.Listener {
        final CountDownLatch closed = new CountDownLatch(1);
        volatile boolean refused;
        volatile String reason = "closed";
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            if (partial.length() + data.length() > ServerFrames.MAX_FRAME_CHARS) {
                partial.setLength(0);
                ws.abort();
                reason = "the server sent an oversize frame";
                closed.countDown();
                return null;
            }
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                PairedDaemon.this.onText(text);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            log.accept("refused a binary frame from the server");
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String why) {
            // 4401/4403: the token is no longer good; 4409: another connection of this runtime took over
            refused = status == 4401 || status == 4403 || status == 4409 || status == 4410;
            reason = status + (why == null || why.isEmpty() ? "" : " " + Text.clip(why, 100));
            closed.countDown();
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            reason = Text.clip(String.valueOf(error), 200);
            closed.countDown();
        }
    }
}
