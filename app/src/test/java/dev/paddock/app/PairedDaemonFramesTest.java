package dev.paddock.app;

import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A fake paired daemon (a plain WebSocket client on loopback) sends the server what a hostile or broken daemon
 * could: every bad frame is answered with an error frame and changes nothing, a tab cannot pass itself off as a
 * daemon nor a daemon as a tab, a result that names a path outside /workspace is refused, and a daemon that keeps
 * sending garbage is cut off.
 */
class PairedDaemonFramesTest {
    static final JsonMapper JSON = JsonMapper.builder().build();
    @TempDir static Path dataDir;
    static PaddockApp app;
    static PaddockClient api;
    static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void startServer() {
        app = TestServer.start(dataDir);
        api = new PaddockClient(app.url(), app.createdAdminKey().orElseThrow());
    }

    @AfterAll
    static void stopServer() {
        if (app != null) app.close();
    }

    /** A socket of a runtime paired as {@code kind}, its frames queued as they arrive. */
    static final class FakeRuntime implements WebSocket.Listener {
        final BlockingQueue<JsonNode> frames = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        final String runtimeId;
        final WebSocket ws;
        private final StringBuilder partial = new StringBuilder();

        FakeRuntime(String kind) throws Exception {
            String code = api.json("POST", "/v1/runtimes/pairing_codes", Map.of(), JsonNodeFactory.instance.objectNode().put("kind", kind))
                    .path("code").asString();
            HttpResponse<String> x = http.send(HttpRequest.newBuilder(URI.create(app.url() + "/v1/runtimes/exchange"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"code\":\"" + code + "\",\"kind\":\"" + kind + "\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(x.statusCode()).as(x.body()).isEqualTo(201);
            JsonNode body = JSON.readTree(x.body());
            runtimeId = body.path("runtime_id").asString();
            ws = http.newWebSocketBuilder().header("Authorization", "Bearer " + body.path("runtime_token").asString())
                    .buildAsync(URI.create(app.url().replace("http://", "ws://") + "/v1/runtimes/relay"), this).get(10, TimeUnit.SECONDS);
            assertThat(next().path("type").asString()).isEqualTo("welcome");
        }

        void send(String frame) throws Exception {
            ws.sendText(frame, true).get(10, TimeUnit.SECONDS);
        }

        JsonNode next() throws InterruptedException {
            JsonNode f = frames.poll(20, TimeUnit.SECONDS);
            assertThat(f).as("a frame from the server").isNotNull();
            return f;
        }

        /** The next frame that is not a heartbeat. */
        JsonNode nextAnswer() throws InterruptedException {
            JsonNode f = next();
            while (f.path("type").asString().equals("heartbeat")) f = next();
            return f;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                frames.add(JSON.readTree(partial.toString()));
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            closed.complete(status);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.complete(-1);
        }
    }

    static String hello(String extra) {
        return "{\"v\":1,\"type\":\"hello\",\"engine\":\"daemon\",\"vm\":\"ready\"" + extra + "}";
    }

    @Test
    void aDaemonHelloMustSayWhatItIsAndNothingElse() throws Exception {
        FakeRuntime d = new FakeRuntime("daemon");
        for (String bad : new String[] {
                hello(""),                                                                 // no host, driver, capacity
                hello(",\"host\":\"h\",\"driver\":\"bwrap\",\"capacity\":65"),             // more than the most
                hello(",\"host\":\"h\",\"driver\":\"bwrap\",\"capacity\":0"),
                hello(",\"host\":\"bad host;\",\"driver\":\"bwrap\",\"capacity\":2"),
                hello(",\"host\":\"h\",\"driver\":\"BWRAP!\",\"capacity\":2"),
                hello(",\"host\":\"h\",\"driver\":\"bwrap\",\"capacity\":2,\"mirrors\":[\"sbx_0123456789abcdefghjkmnpqrs\"]"),
                hello(",\"host\":\"h\",\"driver\":\"bwrap\",\"capacity\":2,\"token\":\"x\""),  // unknown field
                "{\"v\":1,\"type\":\"hello\",\"engine\":\"v86\",\"vm\":\"ready\"}",        // a tab's hello
                "{\"v\":2,\"type\":\"heartbeat\"}",
                "not json"}) {
            d.send(bad);
            JsonNode answer = d.nextAnswer();
            assertThat(answer.path("type").asString()).as(bad).isEqualTo("error");
            assertThat(answer.path("code").asString()).as(bad).isIn("malformed_frame", "unsupported_version");
        }
        JsonNode listed = api.get("/v1/runtimes/" + d.runtimeId);
        assertThat(listed.path("host_name").isNull() || listed.path("host_name").isMissingNode()).as(listed.toString()).isTrue();
        assertThat(listed.path("capacity").asInt()).isZero();

        d.send(hello(",\"host\":\"box-1\",\"driver\":\"bwrap\",\"capacity\":2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> api.get("/v1/runtimes/" + d.runtimeId).path("capacity").asInt() == 2);
        assertThat(api.get("/v1/runtimes/" + d.runtimeId).path("host_name").asString()).isEqualTo("box-1");
        d.ws.abort();
    }

    @Test
    void aTabCannotPassItselfOffAsADaemon() throws Exception {
        FakeRuntime tab = new FakeRuntime("browser-vm");
        tab.send(hello(",\"host\":\"h\",\"driver\":\"bwrap\",\"capacity\":64"));
        JsonNode answer = tab.nextAnswer();
        assertThat(answer.path("code").asString()).isEqualTo("malformed_frame");
        assertThat(api.get("/v1/runtimes/" + tab.runtimeId).path("kind").asString()).isEqualTo("browser-vm");
        assertThatThrownBy(() -> api.json("POST", "/v1/sandboxes", Map.of(), JsonNodeFactory.instance.objectNode().put("driver", "daemon")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("no_sandbox_tab"));
        tab.ws.abort();
    }

    @Test
    void aHostileResultIsRefusedAndOnlyFailsItsOwnOp() throws Exception {
        FakeRuntime d = new FakeRuntime("daemon");
        d.send(hello(",\"host\":\"box-2\",\"driver\":\"bwrap\",\"capacity\":1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> api.get("/v1/runtimes/" + d.runtimeId).path("capacity").asInt() == 1);

        CompletableFuture<JsonNode> created = CompletableFuture.supplyAsync(() ->
                api.json("POST", "/v1/sandboxes", Map.of(), JsonNodeFactory.instance.objectNode().put("driver", "daemon")));
        JsonNode bind = d.nextAnswer();
        assertThat(bind.path("op").asString()).isEqualTo("bind");
        assertThat(bind.path("args").path("limits").path("memory_bytes").asLong()).isPositive();
        d.send("{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"" + bind.path("request_id").asString() + "\",\"ok\":true,\"chunks\":0}");
        String id = created.get(20, TimeUnit.SECONDS).path("id").asString();

        // a stat answered with an entry outside /workspace
        CompletableFuture<Throwable> stat = CompletableFuture.supplyAsync(() -> {
            try {
                api.get("/v1/sandboxes/" + id + "/files/stat", Map.of("path", "/workspace/a"));
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        JsonNode op = d.nextAnswer();
        assertThat(op.path("op").asString()).isEqualTo("stat");
        d.send("{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"" + op.path("request_id").asString() + "\",\"ok\":true,\"chunks\":0,"
                + "\"entry\":{\"path\":\"/etc/shadow\",\"name\":\"shadow\",\"type\":\"file\",\"size\":1,\"mode\":420,\"mtime\":0}}");
        assertThat(stat.get(20, TimeUnit.SECONDS)).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.code()).isEqualTo("path_outside_workspace"));

        // a result for no waiting op, and chunks out of order
        d.send("{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"req_0123456789abcdefghjkmnpqrs\",\"ok\":true,\"chunks\":0}");
        assertThat(d.nextAnswer().path("code").asString()).isEqualTo("unknown_request");
        assertThat(api.get("/v1/runtimes/" + d.runtimeId).path("status").asString()).isEqualTo("online");
        d.ws.abort();
    }

    @Test
    void aDaemonThatKeepsSendingGarbageIsCutOff() throws Exception {
        FakeRuntime d = new FakeRuntime("daemon");
        for (int i = 0; i < 50; i++) d.send("{\"v\":1,\"type\":\"sandbox.exec\"}");
        assertThat(d.closed.get(20, TimeUnit.SECONDS)).isEqualTo(4400);
        await().atMost(Duration.ofSeconds(10)).until(() -> api.get("/v1/runtimes/" + d.runtimeId).path("status").asString().equals("offline"));
    }
}
