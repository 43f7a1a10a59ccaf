package dev.paddock.bench;

import com.sun.net.httpserver.HttpServer;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import dev.paddock.app.serve.WorkerRuntime;
import dev.paddock.core.agents.SessionEventType;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Managed Agents layer of a real in-process Paddock (REST on loopback, SQLite, bwrap): event fan-out to N
 * concurrent SSE subscribers, work-queue poll and ack, and the tool call round trip agent.tool_use → user.tool_result
 * for {@code bash true}, served by Paddock's own worker (its own data directory and bwrap sandbox) against a scripted
 * model on loopback. All times are seen by an SSE or HTTP client in this process. Writes the "agents" section.
 */
public final class AgentsBench {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final int FANOUT_EVENTS = Integer.getInteger("paddock.bench.agents.events", 2000);
    private static final int BATCH = 50;
    private static final int QUEUE_ITEMS = Integer.getInteger("paddock.bench.agents.work", 100);
    private static final int TOOL_CALLS = Integer.getInteger("paddock.bench.agents.tools", 25);

    private final PaddockClient api;
    private final String key;
    private final String base;
    private String agentId;

    private AgentsBench(PaddockClient api, String key) {
        this.api = api;
        this.key = key;
        this.base = api.baseUrl();
    }

    public static void main(String[] args) {
        BenchReport.runAndExit(() -> run(args)); // SSE readers and the worker's threads do not end by themselves
    }

    private static void run(String[] args) throws Exception {
        Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        Path serverDir = Files.createTempDirectory(Path.of("/tmp"), "pab");
        Path workerDir = Files.createTempDirectory(Path.of("/tmp"), "pabw");
        String report;
        try (ToolModel model = new ToolModel(TOOL_CALLS)) {
            ServeSettings settings = ServeSettings.resolve(Map.of("data_dir", serverDir.toString(), "port", "0", "driver", "bwrap",
                    "model_base_url", model.baseUrl(), "model_api_key", "bench-model-key"), Map.of(), null, serverDir);
            try (PaddockApp app = PaddockApp.start(settings)) {
                String key = app.createdAdminKey().orElseThrow();
                AgentsBench bench = new AgentsBench(new PaddockClient(app.url(), key), key);
                bench.agentId = bench.api.json("POST", "/v1/agents", Map.of(), bench.agent()).path("id").asString();
                StringBuilder md = new StringBuilder("## Managed Agents (AgentsBench)\n\n").append(BenchReport.machine()).append("\n\n");
                md.append(bench.fanOut(List.of(1, 10, 50)));
                md.append(bench.pollAck());
                md.append(bench.toolRoundTrip(workerDir));
                report = md.toString();
            }
        } finally {
            new ProcessBuilder("rm", "-rf", serverDir.toString(), workerDir.toString()).start().waitFor();
        }
        BenchReport.writeSection(repo, "agents", report);
        System.out.println(report);
    }

    // ---------------------------------------------------------------- event fan-out

    private String fanOut(List<Integer> subscriberCounts) throws Exception {
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, """
                ### Event fan-out
                %d `user.message` events appended in batches of %d (`POST /v1/sessions/{id}/events`) to a session of a
                self-hosted environment with no worker (the first wakes the agent loop once; its tool call then waits for a
                worker that never comes), while N clients follow `GET …/events/stream` (SSE). "Appended" is
                the client-side rate of the POSTs; "delivered" counts every event reaching every subscriber, from the first
                POST until the last subscriber has the last event.

                | subscribers | appended events/s | delivered events/s (all subscribers) | last event seen by all after |
                |---|---|---|---|
                """, FANOUT_EVENTS, BATCH));
        String env = environment("fanout-" + System.nanoTime(), "self_hosted");
        for (int n : subscriberCounts) {
            String session = session(env);
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch done = new CountDownLatch(n);
            List<Thread> readers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                AtomicInteger seen = new AtomicInteger();
                readers.add(Thread.ofVirtual().start(() -> follow(session, ready, type -> {
                    if (type.equals(SessionEventType.USER_MESSAGE.wire()) && seen.incrementAndGet() == FANOUT_EVENTS) done.countDown();
                }, done)));
            }
            if (!ready.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("subscribers did not connect");
            long start = System.nanoTime();
            for (int sent = 0; sent < FANOUT_EVENTS; sent += BATCH) api.json("POST", "/v1/sessions/" + session + "/events", Map.of(), messages(BATCH));
            double appendSeconds = (System.nanoTime() - start) / 1e9;
            if (!done.await(120, TimeUnit.SECONDS)) throw new IllegalStateException("not every subscriber saw every event");
            double allSeconds = (System.nanoTime() - start) / 1e9;
            readers.forEach(Thread::interrupt);
            md.append(String.format(Locale.ROOT, "| %d | %.0f | %.0f | %.0f ms |%n", n, FANOUT_EVENTS / appendSeconds,
                    (double) FANOUT_EVENTS * n / allSeconds, allSeconds * 1000));
        }
        return md.append('\n').toString();
    }

    /** Follows a session's SSE stream, telling {@code onType} each event type, until {@code stop} reaches zero. */
    private void follow(String session, CountDownLatch connected, Consumer<String> onType, CountDownLatch stop) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/v1/sessions/" + session + "/events/stream"))
                .header("x-api-key", key).header("Accept", "text/event-stream").GET().build();
        try {
            HttpResponse<Stream<String>> res = HTTP.send(req, HttpResponse.BodyHandlers.ofLines());
            connected.countDown();
            try (Stream<String> lines = res.body()) {
                var it = lines.iterator();
                while (stop.getCount() > 0 && it.hasNext()) {
                    String line = it.next();
                    if (line.startsWith("event: ")) onType.accept(line.substring(7).trim());
                }
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // closed at the end of a run
        }
    }

    // ---------------------------------------------------------------- work queue

    private String pollAck() {
        String env = environment("queue-" + System.nanoTime(), "self_hosted");
        String envKey = api.json("POST", "/v1/environments/" + env + "/keys", Map.of(), obj()).path("key").asString();
        for (int i = 0; i < QUEUE_ITEMS; i++) session(env); // each queues one work item
        double[] poll = new double[QUEUE_ITEMS], ack = new double[QUEUE_ITEMS];
        for (int i = 0; i < QUEUE_ITEMS; i++) {
            long t0 = System.nanoTime();
            JsonNode item = worker(envKey, "GET", "/v1/environments/" + env + "/work/poll?block_ms=500");
            long t1 = System.nanoTime();
            String id = item.path("id").asString();
            if (id.isEmpty()) throw new IllegalStateException("poll answered no work: " + item);
            worker(envKey, "POST", "/v1/environments/" + env + "/work/" + id + "/ack");
            long t2 = System.nanoTime();
            poll[i] = (t1 - t0) / 1e6;
            ack[i] = (t2 - t1) / 1e6;
        }
        double[] total = new double[QUEUE_ITEMS];
        for (int i = 0; i < QUEUE_ITEMS; i++) total[i] = poll[i] + ack[i];
        return String.format(Locale.ROOT, """
                ### Work queue
                %d queued items, each taken by one worker with `GET …/work/poll` (environment key, `anthropic-worker-id`)
                and acknowledged with `POST …/work/{id}/ack`, one after the other (ms):

                | step | median | p90 | p99 |
                |---|---|---|---|
                | poll (item waiting) | %.2f | %.2f | %.2f |
                | ack | %.2f | %.2f | %.2f |
                | poll → ack done | %.2f | %.2f | %.2f |

                """, QUEUE_ITEMS, BenchReport.median(poll), BenchReport.percentile(poll, 0.9), BenchReport.percentile(poll, 0.99),
                BenchReport.median(ack), BenchReport.percentile(ack, 0.9), BenchReport.percentile(ack, 0.99),
                BenchReport.median(total), BenchReport.percentile(total, 0.9), BenchReport.percentile(total, 0.99));
    }

    private JsonNode worker(String envKey, String method, String path) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + envKey)
                .header("anthropic-worker-id", "bench-worker").header("Content-Type", "application/json")
                .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString("{}"))
                .timeout(Duration.ofSeconds(30)).build();
        try {
            HttpResponse<byte[]> res = HTTP.send(req, HttpResponse.BodyHandlers.ofByteArray());
            if (res.statusCode() >= 300) throw new IllegalStateException(method + " " + path + " answered " + res.statusCode() + ": " + new String(res.body()));
            return res.body().length == 0 ? obj() : JsonMapper.shared().readTree(res.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------- tool round trip

    private String toolRoundTrip(Path workerDir) throws Exception {
        String env = environment("tools-" + System.nanoTime(), "self_hosted");
        String envKey = api.json("POST", "/v1/environments/" + env + "/keys", Map.of(), obj()).path("key").asString();
        ServeSettings ws = ServeSettings.resolve(Map.of("data_dir", workerDir.toString(), "driver", "bwrap"), Map.of(), null, workerDir);
        try (WorkerRuntime worker = WorkerRuntime.start(ws, base, env, envKey, "bench-tools")) {
            Thread.ofVirtual().start(worker::run);
            String session = session(env);
            List<long[]> pairs = new ArrayList<>();
            long[] open = new long[1];
            CountDownLatch ready = new CountDownLatch(1);
            CountDownLatch idle = new CountDownLatch(1);
            AtomicInteger results = new AtomicInteger();
            AtomicLong lastEvent = new AtomicLong(System.nanoTime());
            Thread reader = Thread.ofVirtual().start(() -> follow(session, ready, type -> {
                long now = System.nanoTime();
                lastEvent.set(now);
                if (type.equals(SessionEventType.AGENT_TOOL_USE.wire())) open[0] = now;
                else if (type.equals(SessionEventType.USER_TOOL_RESULT.wire())) {
                    pairs.add(new long[] {open[0], now});
                    results.incrementAndGet();
                } else if (type.equals(SessionEventType.SESSION_STATUS_IDLE.wire()) && results.get() >= TOOL_CALLS) idle.countDown();
            }, idle));
            if (!ready.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("subscriber did not connect");
            api.json("POST", "/v1/sessions/" + session + "/events", Map.of(), messages(1));
            // the turn ends with status_idle; a stalled session (nothing new for 20 s) ends the run with what it measured
            while (!idle.await(1, TimeUnit.SECONDS)) {
                if (System.nanoTime() - lastEvent.get() > TimeUnit.SECONDS.toNanos(20)) break;
            }
            reader.interrupt();
            if (pairs.size() < 2) throw new IllegalStateException("too few tool calls completed: " + pairs.size());
            String stalled = pairs.size() < TOOL_CALLS
                    ? String.format(Locale.ROOT, "%nOnly %d of the %d calls completed in this run: the worker stopped answering (no new event for 20 s).%n", pairs.size(), TOOL_CALLS)
                    : "";
            // the first call may pay for warming up the worker's path: reported apart
            double first = (pairs.getFirst()[1] - pairs.getFirst()[0]) / 1e6;
            double[] rest = pairs.stream().skip(1).mapToDouble(p -> (p[1] - p[0]) / 1e6).toArray();
            return String.format(Locale.ROOT, """
                    ### Tool call round trip
                    A scripted model (loopback) asks for `bash` with `true` %d times in one turn of a self-hosted session;
                    `paddock worker` (in-process, its own data directory, bwrap driver) follows the session's events, runs
                    each call in its bwrap sandbox and answers with `user.tool_result`. Measured by an SSE subscriber from
                    `agent.tool_use` to `user.tool_result` (ms):

                    | calls after the first | median | p90 | max | first call |
                    |---|---|---|---|---|
                    | %d | %.1f | %.1f | %.1f | %.1f |
                    %s""", TOOL_CALLS, rest.length, BenchReport.median(rest), BenchReport.percentile(rest, 0.9),
                    BenchReport.percentile(rest, 1.0), first, stalled);
        }
    }

    // ---------------------------------------------------------------- helpers

    private ObjectNode agent() {
        ObjectNode a = obj().put("name", "bench-agent").put("model", "bench-model");
        a.putArray("tools").addObject().put("type", "agent_toolset_20260401");
        return a;
    }

    private String environment(String name, String type) {
        ObjectNode e = obj().put("name", name);
        e.putObject("config").put("type", type);
        return api.json("POST", "/v1/environments", Map.of(), e).path("id").asString();
    }

    private String session(String env) {
        return api.json("POST", "/v1/sessions", Map.of(), obj().put("agent", agentId).put("environment_id", env)).path("id").asString();
    }

    private static ObjectNode messages(int count) {
        ObjectNode body = obj();
        var events = body.putArray("events");
        for (int i = 0; i < count; i++) {
            events.addObject().put("type", SessionEventType.USER_MESSAGE.wire()).putArray("content").addObject().put("type", "text").put("text", "m" + i);
        }
        return body;
    }

    private static ObjectNode obj() {
        return JsonMapper.shared().createObjectNode();
    }

    /** A Messages API on loopback: asks for {@code bash true} until it has seen {@code calls} tool results, then ends the turn. */
    static final class ToolModel implements AutoCloseable {
        private final HttpServer server;

        ToolModel(int calls) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/v1/messages", exchange -> {
                JsonNode request = JsonMapper.shared().readTree(exchange.getRequestBody().readAllBytes());
                int results = 0;
                for (JsonNode m : request.path("messages")) {
                    for (JsonNode b : m.path("content")) if ("tool_result".equals(b.path("type").asString())) results++;
                }
                Map<String, Object> block = results < calls
                        ? Map.of("type", "tool_use", "id", "toolu_bench" + results, "name", "bash", "input", Map.of("command", "true"))
                        : Map.of("type", "text", "text", "done");
                // Paddock's loop streams its model requests: answer as the Messages API streams
                exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
                exchange.sendResponseHeaders(200, 0);
                Map<String, Object> usage = Map.of("input_tokens", 1, "output_tokens", 1);
                Map<String, Object> message = new LinkedHashMap<>(Map.of("id", "msg_" + results, "type", "message", "role", "assistant",
                        "model", request.path("model").asString(), "content", List.of(), "usage", usage));
                message.put("stop_reason", null);
                Map<String, Object> start = new LinkedHashMap<>(block);
                Map<String, Object> delta;
                if ("text".equals(block.get("type"))) {
                    start.put("text", "");
                    delta = Map.of("type", "text_delta", "text", block.get("text"));
                } else {
                    start.put("input", Map.of());
                    delta = Map.of("type", "input_json_delta", "partial_json", JsonMapper.shared().writeValueAsString(block.get("input")));
                }
                try (OutputStream out = exchange.getResponseBody()) {
                    event(out, "message_start", Map.of("type", "message_start", "message", message));
                    event(out, "content_block_start", Map.of("type", "content_block_start", "index", 0, "content_block", start));
                    event(out, "content_block_delta", Map.of("type", "content_block_delta", "index", 0, "delta", delta));
                    event(out, "content_block_stop", Map.of("type", "content_block_stop", "index", 0));
                    event(out, "message_delta", Map.of("type", "message_delta",
                            "delta", Map.of("stop_reason", results < calls ? "tool_use" : "end_turn"), "usage", usage));
                    event(out, "message_stop", Map.of("type", "message_stop"));
                }
            });
            server.start();
        }

        private static void event(OutputStream out, String name, Map<String, Object> data) throws IOException {
            out.write(("event: " + name + "\ndata: " + JsonMapper.shared().writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8));
        }

        String baseUrl() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
