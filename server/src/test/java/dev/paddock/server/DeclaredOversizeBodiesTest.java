package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.Ids;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A body declared larger than any limit (1 TiB) is refused from its headers alone: every route the router has that
 * takes a body (and /mcp) answers before a byte of it is sent, with 413 where it would have read it. The server's
 * idle timeout is set far beyond the wait here, so a route that waits for the body (and would stage what arrives on
 * disk up to its limit) shows as no answer rather than as a 408.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeclaredOversizeBodiesTest {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final long HUGE = 1L << 40;
    private static final Pattern PARAM = Pattern.compile("\\{([^}]+)}|<([^>]+)>");

    private final TestServer t = new TestServer(ServerConfig.defaults().withPort(0)
            .withLimits(ServerConfig.DEFAULT_MAX_JSON_BYTES, TestServer.UPLOAD_LIMIT).withIdleTimeout(Duration.ofMinutes(10)), true, true);

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void everyRouteAnswersABodyDeclaredOverItsLimitWithoutWaitingForIt() {
        List<String[]> requests = new ArrayList<>();
        for (String route : t.server.routes()) {
            String method = route.substring(0, route.indexOf(' '));
            if (List.of("GET", "WS", "HEAD", "OPTIONS").contains(method)) continue;
            requests.add(new String[] {method, concrete(route.substring(route.indexOf(' ') + 1)), "application/json"});
        }
        // the uploads, by the content types they read: multipart (Files API, skills), raw and tar (sandbox files)
        requests.add(new String[] {"POST", "/v1/files", "multipart/form-data; boundary=b"});
        requests.add(new String[] {"POST", "/v1/skills", "multipart/form-data; boundary=b"});
        requests.add(new String[] {"POST", "/mcp", "application/json"});
        assertThat(requests).as("the router lists the routes that take bodies").hasSizeGreaterThan(30);

        List<String> failures = new CopyOnWriteArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            for (String[] r : requests) pool.submit(() -> {
                String what = r[0] + " " + r[1] + " (" + r[2] + ")";
                byte[] head = RawHttp.bytes(r[0] + " " + r[1] + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nx-api-key: " + t.adminKey
                        + "\r\nAccept: application/json, text/event-stream\r\nContent-Type: " + r[2] + "\r\nContent-Length: " + HUGE + "\r\n\r\n");
                try {
                    RawHttp.Answer a = RawHttp.send(t.server.port(), head, DEADLINE);
                    if (a.status() < 0) failures.add(what + ": no answer");
                    else if (a.status() < 400 && !r[0].equals("DELETE")) failures.add(what + ": " + a.status() + " for a body that never came");
                    else if (a.status() >= 500) failures.add(what + ": " + a.status() + " " + RawHttp.clip(a.text()));
                    else if (r[2].startsWith("multipart/")) {
                        if (a.status() != 413) failures.add(what + ": " + a.status() + " instead of 413");
                    }
                } catch (AssertionError | RuntimeException e) {
                    failures.add(what + ": " + e.getMessage());
                }
            });
        }
        assertThat(failures).as("routes that did not refuse a 1 TiB body from its headers").isEmpty();
    }

    /** The route's path with made-up ids: nothing is found, nothing is changed, the body is what is refused or ignored. */
    private static String concrete(String template) {
        Matcher m = PARAM.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            String before = template.substring(0, m.start());
            String value = switch (name) {
                case "id" -> before.startsWith("/v1/sandboxes") ? Ids.newId("sbx") : before.startsWith("/v1/api_keys") ? Ids.newId("key")
                        : before.startsWith("/v1/secrets") ? Ids.newId("sec") : Ids.newId("x");
                case "pid", "port" -> "8001";
                case "environment_id" -> Ids.newId("env");
                case "session_id" -> Ids.newId("sesn");
                case "agent_id" -> Ids.newId("agent");
                case "skill_id" -> Ids.newId("skill");
                case "cp" -> Ids.newId("cp");
                default -> "x";
            };
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        String path = out.toString();
        return path.endsWith("/content") || path.contains("/files") ? path + "?path=x" : path;
    }
}
