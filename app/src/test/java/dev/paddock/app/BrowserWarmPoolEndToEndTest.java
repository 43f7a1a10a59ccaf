package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The warm pool of browser sandboxes ({@code browser_warm_pool_size}), with real parts: real bwrap sandboxes with
 * Chromium started and frozen while they wait, claimed over the REST API; pages served by this test on loopback.
 */
@Tag("bwrap")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrowserWarmPoolEndToEndTest {
    HttpServer pages;
    BwrapServer server;
    PaddockClient api;
    int port;

    @BeforeAll
    void start() throws Exception {
        pages = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        pages.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        pages.createContext("/form", x -> BrowserEndToEndTest.reply(x, "text/html", BrowserEndToEndTest.FORM, Map.of()));
        pages.start();
        port = pages.getAddress().getPort();
        server = new BwrapServer("pw", Map.of("warm_pool_size", "0", "browser_warm_pool_size", "1", "egress_test_loopback_ports", Integer.toString(port)));
        api = server.api;
    }

    @AfterAll
    void stop() throws Exception {
        try {
            server.close();
        } finally {
            pages.stop(0);
        }
    }

    @Test
    void aBrowserCreateClaimsAPooledSandboxWithItsBrowserUpAndTheRequestsNetworkPolicy() {
        awaitPooled();
        long t0 = System.nanoTime();
        String id = create(browser(), "127.0.0.1:" + port);
        JsonNode nav = act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form").put("include_screenshot", true));
        System.out.printf("browser pool: create -> first screenshot %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        assertThat(nav.path("ok").asBoolean()).as(nav.toString()).isTrue();
        assertThat(nav.path("title").asString()).isEqualTo("Form");
        assertThat(Base64.getDecoder().decode(nav.path("screenshot").asString())).startsWith(0x89, 'P', 'N', 'G');
        assertThat(createdWarm(id)).as("the create was a claim").isTrue();

        // the pooled sandbox waited with a way out to nowhere; claimed, it has exactly the request's allowlist
        JsonNode other = act(id, obj().put("action", "navigate").put("url", "http://127.0.0.2:" + port + "/form").put("timeout_ms", 10000));
        assertThat(other.path("title").asString()).as(other.toString()).isNotEqualTo("Form");
        JsonNode log = api.get("/v1/sandboxes/" + id + "/egress", Map.of("limit", 1000));
        assertThat(StreamSupport.stream(log.path("data").spliterator(), false).map(e -> e.path("host").asString() + " " + e.path("decision").asString()))
                .contains("127.0.0.1 allowed", "127.0.0.2 denied");

        // the browser keeps working like any other: snapshot, click by reference
        act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form"));
        String snap = act(id, obj().put("action", "snapshot")).path("snapshot").asString();
        assertThat(snap).contains("button \"Go\"");
        assertThat(act(id, obj().put("action", "click").put("text", "Go")).path("title").asString()).isEqualTo("clicked");

        // the pool refills; a browser sandbox with settings of its own starts cold instead
        awaitPooled();
        ObjectNode evaluate = browser();
        evaluate.putObject("browser").put("allow_evaluate", true);
        String cold = create(evaluate, "127.0.0.1:" + port);
        assertThat(createdWarm(cold)).isFalse();
        assertThat(act(cold, obj().put("action", "evaluate").put("expression", "6*7")).path("value").asString()).isEqualTo("42");
        assertThat(pooled()).as("the cold create left the pool alone").isEqualTo(1);
    }

    @Test
    void aBrowserSandboxWithoutNetworkIsNotServedFromThePoolWhoseSandboxesHaveAWayOut() {
        awaitPooled();
        String id = api.json("POST", "/v1/sandboxes", Map.of(), browser()).path("id").asString();
        assertThat(createdWarm(id)).isFalse();
        JsonNode nav = act(id, obj().put("action", "navigate").put("url", "http://127.0.0.1:" + port + "/form").put("timeout_ms", 10000));
        assertThat(nav.path("title").asString()).as(nav.toString()).isNotEqualTo("Form");
    }

    private void awaitPooled() {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> pooled() == 1);
    }

    private int pooled() {
        String metrics = new String(api.call("GET", "/metrics", Map.of(), null), StandardCharsets.UTF_8);
        for (String line : metrics.split("\n")) {
            if (line.startsWith("paddock_sandboxes_warm{pool=\"browser\"}")) return (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        throw new AssertionError("no browser pool gauge in /metrics:\n" + metrics);
    }

    private boolean createdWarm(String id) {
        for (JsonNode e : api.get("/v1/sandboxes/" + id + "/events", Map.of("limit", 100)).path("data")) {
            if (e.path("type").asString().equals("sandbox.creating")) return e.path("data").path("warm").asBoolean();
        }
        throw new AssertionError("no sandbox.creating event for " + id);
    }

    private String create(ObjectNode body, String allowedHost) {
        body.putObject("network").put("type", "limited").putArray("allowed_hosts").add(allowedHost);
        return api.json("POST", "/v1/sandboxes", Map.of(), body).path("id").asString();
    }

    private JsonNode act(String id, ObjectNode action) {
        return api.json("POST", "/v1/sandboxes/" + id + "/browser/actions", Map.of(), action);
    }

    private static ObjectNode browser() {
        return obj().put("template", "browser");
    }

    private static ObjectNode obj() {
        return Json.object();
    }
}
