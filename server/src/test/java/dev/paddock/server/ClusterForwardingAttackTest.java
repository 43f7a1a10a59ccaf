package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.paddock.access.ApiKeys;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.server.cluster.ClusterLink;
import dev.paddock.server.cluster.NodeAuth;
import dev.paddock.store.JdbcStore;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

/**
 * Hostile clients of a cluster's node (two nodes' HTTP servers on one real SQLite store, subprocess sandboxes,
 * HTTP on loopback): whatever a client puts in the path, query, headers or create body of a request the node forwards
 * or places, it gets a precise 4xx or the holder's answer, never a 500; node credentials it sends itself are refused
 * or stripped; and the cluster secret is in no answer and no log line.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterForwardingAttackTest {
    static final String SECRET = "cluster-attack-test-secret-0123456789abcdef";
    static final Duration DEADLINE = Duration.ofSeconds(20);
    TwoNodes nodes;
    JdbcStore store;
    ApiKeys keys;
    PaddockServer serverA;
    PaddockServer serverB;
    String key;
    String sandboxOnB;
    final List<String> logLines = new CopyOnWriteArrayList<>();
    final AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent e) {
            logLines.add(e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getMessage()));
        }
    };

    @BeforeAll
    void start() throws Exception {
        capture.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(capture);
        nodes = new TwoNodes("paddock-cluster-attack");
        store = nodes.store;
        keys = nodes.keys;
        serverA = node("node_a", "a");
        serverB = node("node_b", "b");
        key = keys.create("tenant-attack", "attack", false).secret();
        Api.Resp created = new Api(serverA.port(), key).post("/v1/sandboxes", "{\"placement\":{\"node_labels\":{\"zone\":\"b\"}}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        sandboxOnB = created.json().path("id").asString();
        assertThat(store.sandboxes().find(sandboxOnB).orElseThrow().fence().nodeId()).isEqualTo("node_b");
    }

    private PaddockServer node(String id, String zone) throws Exception {
        return nodes.node(id, zone, (nodeId, host) -> new PaddockServer(host, keys, ServerConfig.defaults().withPort(0),
                List.of(TwoNodes.terminalsAndPorts(host)), new ClusterLink(nodeId, store.nodes(), store, SECRET)));
    }

    @AfterAll
    void stop() throws Exception {
        nodes.close();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(capture);
    }

    private RawHttp.Answer raw(PaddockServer s, String requestLine, String headers, byte[] body) {
        byte[] head = RawHttp.bytes(requestLine + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: " + key + "\r\n" + headers
                + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n");
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return RawHttp.send(s.port(), all, DEADLINE);
    }

    private static void assertNoServerFault(RawHttp.Answer a, String what) {
        boolean noNodeFits = a.status() == 503 && a.text().contains("\"no_node_fits\"");
        if (!noNodeFits) assertThat(a.status()).as("%s answered %s", what, RawHttp.clip(a.head() + "\n" + a.text())).isBetween(200, 499);
        assertThat(a.text()).as(what).doesNotContain(SECRET).doesNotContain("Exception").doesNotContain("at dev.paddock");
    }

    @Test
    void oddCharactersInAForwardedPathOrQueryAreAnsweredNotFaulted() {
        String base = "/v1/sandboxes/" + sandboxOnB;
        for (String target : List.of(base + "/files?path=/workspace|x", base + "/files?path={x}", base + "/files?path=\"x\"",
                base + "/files?path=a^b`c", base + "/files?path=a\\b", base + "/files?path=%zz", base + "/files?path=a%00b",
                base + "/files?path=/workspace#frag", base + "/files?path=" + "é", base + "/files?path=[::1]", base + "?x=<y>")) {
            assertNoServerFault(raw(serverA, "GET " + target, "", new byte[0]), target);
        }
    }

    @Test
    void headersTheForwardingClientCannotCarryAreAnsweredNotFaulted() {
        String target = "GET /v1/sandboxes/" + sandboxOnB + "/files?path=/workspace";
        List<String> headers = List.of("X-Latin: caf\u00e9\r\n", "X-Utf8: " + new String("caf\u00e9 \u2603".getBytes(StandardCharsets.UTF_8),
                        StandardCharsets.ISO_8859_1) + "\r\n", "Date: Tue, 01 Dec 2026 00:00:00 GMT\r\n", "Via: 1.1 someone\r\n",
                "Warning: 199 - x\r\n", "Expect: 100-continue\r\n", "Upgrade: h2c\r\nConnection: Upgrade\r\n", "HTTP2-Settings: AAMAAABkAAQAAP__\r\n",
                "X-Empty:\r\n", "X-Twice: one\r\nX-Twice: two\r\n", "TE: trailers\r\n", "Proxy-Authorization: Basic eDp5\r\n");
        for (String h : headers) assertNoServerFault(raw(serverA, target, h, new byte[0]), h.strip());
    }

    @Test
    void webSocketUpgradesWithOddTargetsOrHeadersAreRefusedNotFaulted() {
        String upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
        String attach = "GET /v1/sandboxes/" + sandboxOnB + "/pty/pty_missing/attach";
        String port = "GET /v1/sandboxes/" + sandboxOnB + "/ports/8000/t/prt_guess/";
        for (String[] c : List.of(new String[] {attach + "?token=<x>|y", ""}, new String[] {attach + "?token=%zz", ""},
                new String[] {port + "a<b>?q=|", ""}, new String[] {attach + "?token=t", "Origin: http://caf\u00e9.example\r\n"},
                new String[] {attach + "?token=t", "Sec-WebSocket-Protocol: a b, (c)\r\n"}, new String[] {port, "Sec-WebSocket-Protocol: ,,\r\n"})) {
            RawHttp.Answer a = raw(serverA, c[0], upgrade + c[1], new byte[0]);
            assertNoServerFault(a, c[0] + " " + c[1].strip());
            assertThat(a.status()).as(c[0] + " " + c[1].strip()).isGreaterThanOrEqualTo(400);
        }
    }

    @Test
    void hostileCreateBodiesAreAnsweredWithA4xxOnANodeThatPlaces() {
        for (String body : List.of("{\"placement\":{\"node_labels\":{\"zone\":{\"x\":1}}}}", "{\"placement\":{\"node_labels\":{\"zone\":[1]}}}",
"{\"placement\":{\"node_labels\":{\"zone\":7}}}",
                "{\"placement\":{\"node_labels\":[\"zone\"]}}", "{\"placement\":\"b\"}", "{\"driver\":7}", "{\"driver\":{\"a\":1}}",
                "{\"from_checkpoint\":7}", "{\"from_checkpoint\":\"cp_missing\"}", "{\"from_checkpoint\":{\"id\":\"x\"}}",
                "{\"from_snapshot\":[\"x\"]}", "[]", "\"text\"", "null", "7", "{\"placement\":{\"node_labels\":{\"zone\":\"" + "z".repeat(5000) + "\"}}}")) {
            RawHttp.Answer a = raw(serverA, "POST /v1/sandboxes", "Content-Type: application/json\r\n", body.getBytes(StandardCharsets.UTF_8));
            assertNoServerFault(a, body.length() > 100 ? body.substring(0, 100) : body);
            assertThat(a.status()).as("%s: %s", body.length() > 100 ? body.substring(0, 100) : body, a.text()).isGreaterThanOrEqualTo(400);
            assertThat(a.header("Content-Type")).startsWith("application/json");
        }
    }

    @Test
    void nodeCredentialsFromAClientAreNeverForwardedNorTrusted() {
        // a client naming another caller beside its own key, on the node that forwards: the key decides on the holder too
        Api stranger = new Api(serverA.port(), keys.create("tenant-stranger", "s", true).secret());
        Api.Resp claimed = stranger.send(stranger.request("GET", "/v1/sandboxes/" + sandboxOnB, HttpRequest.BodyPublishers.noBody())
                .header(NodeAuth.PRINCIPAL_HEADER, "tenant-attack;x;true"));
        claimed.error(404, "not_found_error", null);
        // a guessed secret is refused before anything is forwarded, with or without a key
        Api.Resp guessed = stranger.send(stranger.request("GET", "/v1/sandboxes/" + sandboxOnB, HttpRequest.BodyPublishers.noBody())
                .header(NodeAuth.SECRET_HEADER, SECRET.substring(1) + "x").header(NodeAuth.PRINCIPAL_HEADER, "tenant-attack;x;true"));
        guessed.error(401, "authentication_error", "invalid_api_key");
        Api.Resp empty = stranger.send(stranger.request("GET", "/v1/sandboxes/" + sandboxOnB, HttpRequest.BodyPublishers.noBody())
                .header(NodeAuth.SECRET_HEADER, ""));
        empty.error(401, "authentication_error", "invalid_api_key");
        // the right secret with a caller that does not parse is refused, not trusted as someone
        Api anonymous = new Api(serverB.port(), null);
        anonymous.send(anonymous.request("GET", "/v1/sandboxes/" + sandboxOnB, HttpRequest.BodyPublishers.noBody())
                .header(NodeAuth.SECRET_HEADER, SECRET).header(NodeAuth.PRINCIPAL_HEADER, "tenant-attack;x"))
                .error(401, "authentication_error", "invalid_api_key");
        anonymous.send(anonymous.request("GET", "/v1/sandboxes/" + sandboxOnB, HttpRequest.BodyPublishers.noBody())
                .header(NodeAuth.SECRET_HEADER, SECRET)).error(401, "authentication_error", "invalid_api_key");
    }

    @Test
    void anotherTenantsSandboxOnANodeThatStoppedAnsweringIsNotFoundNotUnreachable() {
        NodeRecord b = store.nodes().find("node_b").orElseThrow();
        Instant now = Instant.now();
        assertThat(store.nodes().heartbeat("node_b", b.epoch(), b.capacity(), now, now.minusSeconds(1))).isTrue();
        try {
            // the owner hears that the holder is out of reach; a stranger hears what any unknown id gets
            new Api(serverA.port(), key).post("/v1/sandboxes/" + sandboxOnB + "/exec", "{\"argv\":[\"true\"]}")
                    .error(503, "unavailable_error", "node_unreachable");
            Api stranger = new Api(serverA.port(), keys.create("tenant-oracle", "o", true).secret());
            for (Api.Resp r : List.of(stranger.post("/v1/sandboxes/" + sandboxOnB + "/exec", "{\"argv\":[\"true\"]}"),
                    stranger.get("/v1/sandboxes/" + sandboxOnB + "/checkpoints"), stranger.get("/v1/sandboxes/" + sandboxOnB),
                    stranger.delete("/v1/sandboxes/" + sandboxOnB))) {
                r.error(404, "not_found_error", null);
                assertThat(r.body()).doesNotContain("node_b");
            }
        } finally {
            assertThat(store.nodes().heartbeat("node_b", b.epoch(), b.capacity(), now, now.plusSeconds(3600))).isTrue();
        }
    }

    @Test
    void theClusterSecretIsInNoAnswerAndNoLogLine() {
        Api api = new Api(serverA.port(), key);
        List<Api.Resp> answers = List.of(api.get("/v1/sandboxes/" + sandboxOnB), api.get("/v1/sandboxes/" + sandboxOnB + "/files?path=/nowhere"),
                api.post("/v1/sandboxes/" + sandboxOnB + "/exec", "{\"argv\":[\"sh\",\"-c\",\"env\"]}"),
                api.get("/v1/sandboxes/" + sandboxOnB + "/nothing-here"));
        for (Api.Resp r : answers) {
            assertThat(r.body()).doesNotContain(SECRET);
            r.headers().map().values().forEach(v -> assertThat(String.join(",", v)).doesNotContain(SECRET));
        }
        assertThat(answers.get(2).body()).as("the sandbox's environment").doesNotContain("paddock-node");
        oddCharactersInAForwardedPathOrQueryAreAnsweredNotFaulted();
        headersTheForwardingClientCannotCarryAreAnsweredNotFaulted();
        webSocketUpgradesWithOddTargetsOrHeadersAreRefusedNotFaulted();
        assertThat(logLines).noneMatch(l -> l.contains(SECRET));
    }
}
