package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import dev.paddock.core.Ids;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Every route the server has (read from its router, so a new route is covered without touching this test), and
 * /mcp, driven with hostile bodies, paths and headers over raw sockets: no answer is a 5xx, none hangs, every error
 * is the API's shape with a code and nothing of the internals, and the log stays small and never holds a body.
 * The cases are a fixed, seeded set per route.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouteFuzzTest {
    private static final long SEED = 0x5EED_2026L;
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final String MARK = "fuzzmark" + Long.toHexString(SEED);
    private static final Pattern PARAM = Pattern.compile("\\{([^}]+)}|<([^>]+)>");

    private final TestServer t = new TestServer(ServerConfig.defaults().withPort(0)
            .withLimits(ServerConfig.DEFAULT_MAX_JSON_BYTES, TestServer.UPLOAD_LIMIT).withIdleTimeout(Duration.ofSeconds(1)), true, true);
    private final LogCapture logs = new LogCapture();
    private final Map<String, String> ids = new LinkedHashMap<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();

    @BeforeAll
    void fixtures() {
        logs.attach();
        Api api = t.admin;
        String sandbox = api.createSandbox();
        ids.put("sandbox", sandbox);
        var cp = api.post("/v1/sandboxes/" + sandbox + "/checkpoints", "{}");
        ids.put("checkpoint", cp.status() < 300 ? cp.json().path("id").asString() : Ids.newId("cp"));
        var key = api.post("/v1/api_keys", "{\"name\":\"fuzz\"}");
        ids.put("api_key", key.status() < 300 ? key.json().path("id").asString() : Ids.newId("key"));
        var env = api.post("/v1/environments", "{\"name\":\"fuzz\"}");
        ids.put("environment", env.status() < 300 ? env.json().path("id").asString() : Ids.newId("env"));
        var agent = api.post("/v1/agents", "{\"name\":\"fuzz\",\"model\":\"claude-sonnet-4-5\"}");
        ids.put("agent", agent.status() < 300 ? agent.json().path("id").asString() : Ids.newId("agent"));
    }

    @AfterAll
    void close() {
        logs.detach();
        t.close();
    }

    @Test
    void everyRouteAnswersHostileInputWithA4xxInTheErrorShape() {
        List<Route> routes = new ArrayList<>(t.server.routes().stream().filter(r -> !r.startsWith("WS "))
                .map(r -> new Route(r.substring(0, r.indexOf(' ')), r.substring(r.indexOf(' ') + 1))).distinct().toList());
        assertThat(routes).as("the router lists the API's routes")
                .contains(new Route("POST", "/v1/sandboxes/{id}/exec"), new Route("POST", "/v1/agents"),
                        new Route("GET", "/v1/secrets"));
        // what ends a fixture (DELETE) goes last, so the other routes meet live resources
        routes.sort(Comparator.comparing((Route r) -> r.method().equals("DELETE")));
        Random random = new Random(SEED);
        List<Runnable> cases = new ArrayList<>();
        List<Runnable> lastCases = new ArrayList<>();
        for (Route route : routes) {
            List<Runnable> into = route.method().equals("DELETE") ? lastCases : cases;
            String path = concrete(route.path(), null);
            boolean takesBody = !route.method().equals("GET") && !route.method().equals("DELETE");
            List<byte[]> bodies = hostileBodies();
            if (!takesBody) {
                Collections.shuffle(bodies, random);
                bodies = bodies.subList(0, 4);
            }
            for (byte[] body : bodies) into.add(() -> check(route.method(), path, "Content-Type: application/json\r\n", body));
            if (PARAM.matcher(route.path()).find()) {
                for (String bad : hostileSegments()) into.add(() -> check(route.method(), concrete(route.path(), bad), "", new byte[0]));
            }
            into.add(() -> check(route.method(), path + "?path=..%2F..%2F..%2Fetc%2Fpasswd&limit=99999999999999999999&after_id=%FF&page=%00&block_ms=-1", "", new byte[0]));
            List<String[]> headers = hostileHeaders();
            Collections.shuffle(headers, random);
            for (String[] h : headers.subList(0, 3)) into.add(() -> check(route.method(), path, h[0], bytes(h[1])));
        }
        for (String method : List.of("PUT", "PATCH", "OPTIONS", "TRACE", "FOO")) cases.add(() -> check(method, "/v1/sandboxes", "", new byte[0]));
        cases.add(() -> check("GET", "/" + "a".repeat(10_000), "", new byte[0]));
        cases.addAll(mcp());
        // bodies that stop arriving wait for the idle timeout: they run beside everything else
        try (ExecutorService quiet = Executors.newVirtualThreadPerTaskExecutor()) {
            shortBodies(routes, random).forEach(quiet::submit);
            run(cases);
            run(lastCases);
        }
        System.out.println("route fuzz: " + routes.size() + " routes, " + requests + " requests, " + logs.chars.get() + " log chars");
        assertThat(failures).as("%d of %d requests misbehaved", failures.size(), requests.get()).isEmpty();
        logs.assertBounded();
    }

    /** A few requests at a time, so the run takes seconds; the server sees concurrent hostile clients too. */
    private static void run(List<Runnable> cases) {
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            cases.forEach(pool::submit);
        }
    }

    /** Bodies shorter than their Content-Length: each answers 400/408 once the connection goes quiet. */
    private List<Runnable> shortBodies(List<Route> routes, Random random) {
        List<Route> withBodies = new ArrayList<>(routes.stream().filter(r -> r.method().equals("POST")).toList());
        Collections.shuffle(withBodies, random);
        List<Runnable> out = new ArrayList<>();
        for (Route r : withBodies.subList(0, 3)) {
            out.add(() -> send(r.method(), concrete(r.path(), null), "Content-Type: application/json\r\nContent-Length: 500\r\n", bytes("{\"a\":")));
        }
        String json = "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
        out.add(() -> send("POST", "/mcp", json + "Content-Length: 3000000\r\n", bytes("{\"a\":\"" + MARK)));
        return out;
    }

    private List<Runnable> mcp() {
        List<Runnable> out = new ArrayList<>();
        String json = "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
        for (byte[] body : hostileBodies()) out.add(() -> check("POST", "/mcp", json, body));
        out.add(() -> check("POST", "/mcp", json, bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")));
        out.add(() -> check("POST", "/mcp", json, bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":[null]}}")));
        for (String m : List.of("GET", "PUT", "PATCH", "DELETE", "OPTIONS")) out.add(() -> check(m, "/mcp", "", new byte[0]));
        for (String bad : hostileSegments()) out.add(() -> check("DELETE", "/mcp/" + bad, "", new byte[0]));
        for (String[] h : hostileHeaders()) out.add(() -> check("POST", "/mcp", h[0], bytes(h[1])));
        return out;
    }

    private void check(String method, String path, String headers, byte[] body) {
        boolean hasLength = headers.toLowerCase().contains("content-length") || headers.toLowerCase().contains("transfer-encoding");
        send(method, path, headers + (hasLength ? "" : "Content-Length: " + body.length + "\r\n"), body);
    }

    private void send(String method, String path, String headers, byte[] body) {
        requests.incrementAndGet();
        String what = method + " " + RawHttp.clip(path) + " [" + headers.replace("\r\n", "; ") + "] " + describe(body);
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(bytes(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nx-api-key: " + t.adminKey
                + "\r\n" + headers + "\r\n"));
        request.writeBytes(body);
        RawHttp.Answer a;
        try {
            a = RawHttp.send(t.server.port(), request.toByteArray(), DEADLINE);
        } catch (AssertionError | RuntimeException e) {
            failures.add(what + ": " + e.getMessage());
            return;
        }
        String problem = problem(a);
        if (problem != null) failures.add(what + " -> " + problem);
    }

    /** What is wrong with an answer, or null. */
    private static String problem(RawHttp.Answer a) {
        if (a.status() < 0) return "no answer: " + RawHttp.clip(a.head());
        if (a.status() < 400) return null;
        String text = a.text();
        // 501 unsupported_capability and 503 (e.g. browser-vm assets not built) are the server's state, not the input's
        boolean stateful = (a.status() == 501 || a.status() == 503) && text.contains("\"code\"") && !text.contains("\"internal\"");
        if (a.status() >= 500 && !stateful) return "status " + a.status() + ": " + RawHttp.clip(text);
        String type = a.header("Content-Type");
        if (type == null || !type.startsWith("application/json")) return "status " + a.status() + " without a JSON body: " + RawHttp.clip(a.head());
        JsonNode j;
        try {
            j = Api.JSON.readTree(a.body());
        } catch (RuntimeException e) {
            return "status " + a.status() + " with a body that is not JSON: " + RawHttp.clip(text);
        }
        if (!"error".equals(j.path("type").asString()) || j.path("error").path("code").asString().isBlank()
                || j.path("error").path("type").asString().isBlank() || j.path("error").path("message").asString().isBlank()) {
            return "status " + a.status() + " not in the error shape with a code: " + RawHttp.clip(text);
        }
        for (String leak : List.of("Exception", "\tat ", "java.", "jakarta.", "org.eclipse", "tools.jackson", "dev.paddock", MARK)) {
            if (text.contains(leak)) return "status " + a.status() + " leaks '" + leak + "': " + RawHttp.clip(text);
        }
        if (a.body().length > 16_384) return "status " + a.status() + " with an error body of " + a.body().length + " bytes";
        return null;
    }

    private String concrete(String pattern, String hostile) {
        Matcher m = PARAM.matcher(pattern);
        StringBuilder out = new StringBuilder();
        boolean first = true;
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            String value = first && hostile != null ? hostile : value(name, pattern.substring(0, m.start()));
            m.appendReplacement(out, Matcher.quoteReplacement(value));
            first = false;
        }
        m.appendTail(out);
        return out.toString();
    }

    /** A plausible value for a path parameter: a live fixture's id where there is one, else an id of the right shape. */
    private String value(String name, String before) {
        return switch (name) {
            case "cp" -> ids.get("checkpoint");
            case "pid" -> "1";
            case "agent_id" -> ids.get("agent");
            case "environment_id" -> ids.get("environment");
            case "session_id" -> Ids.newId("sesn");
            case "work_id" -> Ids.newId("work");
            case "key_id" -> Ids.newId("ekey");
            case "name" -> "busybox";
            case "file" -> "v86.wasm";
            case "id" -> {
                if (before.startsWith("/v1/sandboxes")) yield ids.get("sandbox");
                if (before.startsWith("/v1/api_keys")) yield ids.get("api_key");
                if (before.startsWith("/v1/secrets")) yield Ids.newId("sec");
                yield Ids.newId("x");
            }
            default -> "x";
        };
    }

    private static List<byte[]> hostileBodies() {
        List<byte[]> b = new ArrayList<>();
        for (String s : List.of("null", "[]", "\"str\"", "1e400", "123456789012345678901234567890", "true", "{\"a\":", "{} {}",
                "{\"x\": 1e400, \"signal\": 123456789012345678901234567890}",
                "{\"argv\":[null],\"tools\":[null],\"events\":[null],\"hosts\":[null]}",
                "{\"events\":[{\"type\":\"user.message\",\"content\":[null]}]}",
                "{\"name\":1,\"argv\":\"x\",\"env\":[],\"command\":{},\"model\":[],\"metadata\":\"m\",\"signal\":{},\"path\":7,"
                        + "\"kind\":5,\"code\":true,\"limits\":\"x\",\"events\":{},\"tools\":\"x\",\"config\":[],\"value\":[]}",
                "{\"signal\": -1e308, \"timeout_seconds\": 9223372036854775808}")) {
            b.add(bytes(s));
        }
        b.add(bytes("[".repeat(5000) + "]".repeat(5000)));
        b.add(bytes("{\"a\":".repeat(400) + "1" + "}".repeat(400)));
        b.add(new byte[] {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', (byte) 0xC3, (byte) 0x28, (byte) 0xFF, '"', '}'});
        b.add(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}', 0});
        b.add(("{\"name\":\"" + MARK + "a".repeat(900_000) + "\",\"metadata\":{\"" + MARK + "\":\"" + MARK + "\"}}").getBytes(StandardCharsets.UTF_8));
        return b;
    }

    private static List<String> hostileSegments() {
        return List.of("%FF%FE", "%00", "..%2F..%2Fetc", "..", "%2e%2e", "a".repeat(3000), "%C0%AF");
    }

    /** Header sets and the body sent with them. */
    private static List<String[]> hostileHeaders() {
        List<String[]> h = new ArrayList<>();
        h.add(new String[] {"Content-Length: abc\r\n", "{}"});
        h.add(new String[] {"Content-Length: -5\r\n", "{}"});
        h.add(new String[] {"Content-Length: 2\r\nContent-Length: 3\r\n", "{}"});
        h.add(new String[] {"Transfer-Encoding: chunked\r\n", "zz\r\n{}\r\n0\r\n\r\n"});
        h.add(new String[] {"Transfer-Encoding: chunked\r\n", "2\r\n{}XX\r\n0\r\n\r\n"});
        h.add(new String[] {"Transfer-Encoding: chunked\r\nContent-Length: 2\r\n", "2\r\n{}\r\n0\r\n\r\n"});
        h.add(new String[] {"Content-Type: text/plain\r\nContent-Length: 2\r\n", "{}"});
        h.add(new String[] {"Content-Type: application/json; charset=klingon\r\nContent-Length: 2\r\n", "{}"});
        h.add(new String[] {"Content-Type: \u00ff\r\nAccept: \u0001\r\nContent-Length: 2\r\n", "{}"});
        h.add(new String[] {"Transfer-Encoding: gzip, chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"});
        h.add(new String[] {"X-Long: " + "b".repeat(20_000) + "\r\nContent-Length: 2\r\n", "{}"});
        return h;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String describe(byte[] body) {
        String s = new String(body, 0, Math.min(body.length, 60), StandardCharsets.ISO_8859_1).replaceAll("[^\\x20-\\x7e]", "?");
        return body.length > 60 ? s + "…(" + body.length + " bytes)" : s;
    }

    /** Everything the server logs while the test runs: its size, and any event that quotes a body or reports a bug. */
    private static final class LogCapture extends AppenderBase<ILoggingEvent> {
        final AtomicLong chars = new AtomicLong();
        final List<String> bad = new CopyOnWriteArrayList<>();
        private final ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

        void attach() {
            setContext(root.getLoggerContext());
            start();
            root.addAppender(this);
        }

        void detach() {
            root.detachAppender(this);
            stop();
        }

        @Override
        protected void append(ILoggingEvent e) {
            String text = e.getFormattedMessage() == null ? "" : e.getFormattedMessage();
            long size = text.length() + throwableSize(e.getThrowableProxy());
            chars.addAndGet(size);
            if (text.contains(MARK)) bad.add("quotes a request body: " + RawHttp.clip(text));
            else if (size > 8192) bad.add("an event of " + size + " characters: " + RawHttp.clip(text));
            // the MCP SDK logs a refused message as an error, but only its own words (whole bodies are stopped before it)
            else if (e.getLevel().isGreaterOrEqual(Level.ERROR) && !e.getLoggerName().startsWith("io.modelcontextprotocol")) {
                bad.add("an error: " + RawHttp.clip(text));
            }
        }

        private static long throwableSize(IThrowableProxy t) {
            long n = 0;
            for (int depth = 0; t != null && depth < 10; t = t.getCause(), depth++) {
                n += (t.getMessage() == null ? 0 : t.getMessage().length()) + 80L * t.getStackTraceElementProxyArray().length;
                if (t.getMessage() != null && t.getMessage().contains(MARK)) n += 1 << 20;
            }
            return n;
        }

        void assertBounded() {
            assertThat(bad).as("log events").isEmpty();
            assertThat(chars.get()).as("characters logged").isLessThan(1L << 20);
        }
    }

    /** One HTTP route: its method and its path pattern, with Javalin's {@code {param}} placeholders. */
    private record Route(String method, String path) {}
}
