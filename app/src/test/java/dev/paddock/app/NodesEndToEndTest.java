package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.TerminalAndPortsEndToEndTest.TerminalClient;
import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.client.SseEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Three {@code paddock serve} processes on one PostgreSQL act as one Paddock: any of them answers for a sandbox
 * another holds (forwarded, SSE included), creates are placed by labels, a node killed with SIGKILL under load loses
 * its lease: its sandbox with a checkpoint in the shared checkpoint directory goes on as a new sandbox on a survivor
 * that carries the labels its create asked for (the old one's reason names it), one whose labels no survivor carries
 * fails saying so, the others fail with the reason, and every acknowledged create stays known; the restarted node is
 * a new epoch and reaps its orphaned backend sandboxes, and a node frozen past its lease is fenced (requests and
 * WebSockets forwarded to it end without waiting for it to wake), then rejoins by itself as a new epoch and serves
 * again without a restart. Real JVMs, bwrap and PostgreSQL on loopback.
 */
@Tag("bwrap")
class NodesEndToEndTest {
    static final String KEY = "pdk_nodes_test_admin_key_0123456789abcdef";
    ServerNodes cluster;
    @RegisterExtension
    final TestExecutionExceptionHandler nodeLogs = ServerNodes.logsOnFailure(() -> cluster);
    Path sharedCheckpoints;

    @AfterEach
    void tearDown() throws Exception {
        if (cluster != null) cluster.close();
        if (sharedCheckpoints != null) BwrapServer.removeDataDir(sharedCheckpoints);
    }

    /** {@code labels}: the node's labels ({@code zone=…}, and for B and C {@code disk=ssd}). */
    ServerProcess node(String labels) throws Exception {
        if (sharedCheckpoints == null) sharedCheckpoints = Files.createTempDirectory(Path.of("/tmp"), "pdn-checkpoints");
        return cluster.node(Map.of("PADDOCK_CHECKPOINT_DIR", sharedCheckpoints.toString(), // one shared filesystem, as it were
                "PADDOCK_NODE_LEASE", "5s", "PADDOCK_NODE_LABELS", labels));
    }

    static ObjectNode createIn(String zone) {
        ObjectNode body = Json.object();
        body.putObject("placement").putObject("node_labels").put("zone", zone);
        return body;
    }

    static ObjectNode shell(String line) {
        ObjectNode body = Json.object();
        body.putArray("argv").add("sh").add("-c").add(line);
        return body;
    }

    static ObjectNode echo(String text) {
        ObjectNode body = Json.object();
        body.putArray("argv").add("echo").add(text);
        return body;
    }

    @Test
    void threeServersActAsOnePaddockAndSurviveTheLossOfOne() throws Exception {
        cluster = new ServerNodes("pdn", KEY);
        ServerProcess a = node("zone=a"), b = node("zone=b,disk=ssd"), c = node("zone=c,disk=ssd");
        PaddockClient apiA = a.start(), apiB = b.start(), apiC = c.start();

        JsonNode nodes = apiA.get("/v1/nodes").path("data");
        assertThat(nodes).hasSize(3);
        nodes.forEach(n -> assertThat(n.path("state").asString()).isEqualTo("active"));
        nodes.forEach(n -> assertThat(n.path("checkpoint_dir").asString()).isEqualTo(sharedCheckpoints.toString()));
        String nodeC = Files.readString(c.dataDir.resolve("node.id")).strip();
        String nodeB = Files.readString(b.dataDir.resolve("node.id")).strip();
        String nodeA = Files.readString(a.dataDir.resolve("node.id")).strip();

        // drained through the CLI: no new placement on A until it is made active again
        Cli cli = new Cli(Map.of("PADDOCK_DATA_DIR", a.dataDir.toString(), "PADDOCK_API_KEY", KEY), a.dataDir);
        Cli.Result listed = cli.run("nodes");
        assertThat(listed.code()).as(listed.toString()).isZero();
        assertThat(listed.out()).contains(nodeA + " *").contains(nodeC).contains("zone=c").contains(sharedCheckpoints.toString());
        Cli.Result drained = cli.run("nodes", "drain", nodeA, "--wait", "--timeout", "30s");
        assertThat(drained.code()).as(drained.toString()).isZero();
        assertThat(drained.err()).contains("holds no active sandbox");
        assertThatThrownBy(() -> apiB.json("POST", "/v1/sandboxes", Map.of(), createIn("a")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("no_node_fits"));
        assertThat(cli.run("nodes", "activate", nodeA).code()).isZero();

        // placed by label through A onto C; answered through B by forwarding, JSON and SSE alike
        String zoneC = apiA.json("POST", "/v1/sandboxes", Map.of(), createIn("c")).path("id").asString();
        assertThat(apiC.get("/v1/sandboxes/" + zoneC).path("id").asString()).isEqualTo(zoneC);
        assertThat(apiB.json("POST", "/v1/sandboxes/" + zoneC + "/exec", Map.of(), echo("via-b")).path("stdout").asString()).contains("via-b");
        StringBuilder streamed = new StringBuilder();
        apiB.stream("/v1/sandboxes/" + zoneC + "/exec", echo("streamed-through-b"), (SseEvent e) -> {
            if (e.event().equals("stdout")) {
                streamed.append(new String(Base64.getDecoder().decode(PaddockClient.parse(e.data().getBytes(StandardCharsets.UTF_8))
                        .path("data_base64").asString()), StandardCharsets.UTF_8));
            }
        });
        assertThat(streamed.toString()).contains("streamed-through-b");
        String onA = apiB.json("POST", "/v1/sandboxes", Map.of(), createIn("a")).path("id").asString();
        assertThat(apiC.json("POST", "/v1/sandboxes/" + onA + "/exec", Map.of(), echo("via-c")).path("stdout").asString()).contains("via-c");
        assertThatThrownBy(() -> apiA.json("POST", "/v1/sandboxes", Map.of(), createIn("nowhere")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("no_node_fits"));

        // C's sandbox asks for disk=ssd (B is drained meanwhile, so it is placed on C); it keeps a file in a checkpoint
        // (in the shared directory); another of C's sandboxes has none
        apiA.json("POST", "/v1/nodes/" + nodeB + "/drain", Map.of(), Json.object());
        ObjectNode ssd = Json.object();
        ssd.putObject("placement").putObject("node_labels").put("disk", "ssd");
        String onSsd = apiA.json("POST", "/v1/sandboxes", Map.of(), ssd).path("id").asString();
        apiA.json("POST", "/v1/nodes/" + nodeB + "/activate", Map.of(), Json.object());
        String onC = onSsd;
        assertThat(Files.isDirectory(c.dataDir.resolve("run").resolve(onC))).as("placed on C").isTrue();
        apiB.json("POST", "/v1/sandboxes/" + onC + "/exec", Map.of(), shell("echo kept-through-the-loss > /workspace/notes.txt"));
        String checkpoint = apiB.json("POST", "/v1/sandboxes/" + onC + "/checkpoints", Map.of(), Json.object())
                .path("id").asString();
        assertThat(Files.exists(sharedCheckpoints.resolve(checkpoint + ".tar"))).as("archive in the shared directory").isTrue();
        apiB.json("POST", "/v1/sandboxes/" + zoneC + "/checkpoints", Map.of(), Json.object());
        String bareOnC = apiA.json("POST", "/v1/sandboxes", Map.of(), createIn("c")).path("id").asString();

        // load on all three (creates spread by capacity, execs on C's sandbox); then C is killed
        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService load = Executors.newFixedThreadPool(4);
        List<PaddockClient> clients = List.of(apiA, apiB);
        for (int t = 0; t < 4; t++) {
            PaddockClient api = clients.get(t % 2);
            int worker = t;
            load.submit(() -> {
                while (!stop.get()) {
                    try {
                        if (worker == 0) api.json("POST", "/v1/sandboxes/" + onC + "/exec", Map.of(), echo("load"));
                        else acked.add(api.json("POST", "/v1/sandboxes", Map.of(), Json.object()).path("id").asString());
                    } catch (RuntimeException e) {
                        // a request that reached C as it died fails; a client retries elsewhere (below)
                    }
                }
            });
        }
        Thread.sleep(1500);
        c.kill();
        Thread.sleep(500);
        stop.set(true);
        load.shutdown();
        assertThat(load.awaitTermination(60, TimeUnit.SECONDS)).isTrue();

        // C's lease runs out: one survivor marks it lost; a sandbox with no checkpoint fails, saying why
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> apiA.get("/v1/sandboxes/" + bareOnC).path("state").asString().equals("failed"));
        assertThat(apiB.get("/v1/sandboxes/" + bareOnC).path("state_reason").asString())
                .contains(nodeC).contains("stopped renewing its lease").contains("workspace").contains("no checkpoint");
        // one whose create asked for a label no survivor carries cannot go on, though its checkpoint would be reachable
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> apiA.get("/v1/sandboxes/" + zoneC).path("state").asString().equals("failed"));
        assertThat(apiB.get("/v1/sandboxes/" + zoneC).path("state_reason").asString()).contains(nodeC)
                .contains("carries the labels its create asked for {zone=c}").doesNotContain("goes on as");
        // the checkpointed one goes on as a new sandbox on a survivor, with the checkpoint's files; its reason links them
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> apiA.get("/v1/sandboxes/" + onC).path("state").asString().equals("failed"));
        String oldReason = apiA.get("/v1/sandboxes/" + onC).path("state_reason").asString();
        assertThat(oldReason).contains(nodeC).contains("goes on as sbx_").contains(checkpoint)
                .as("on B, the survivor with the label its create asked for").contains("on node " + nodeB);
        String successor = oldReason.replaceAll(".*goes on as (sbx_[A-Za-z0-9]+).*", "$1");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> apiA.get("/v1/sandboxes/" + successor).path("state").asString().equals("running"));
        assertThat(apiB.get("/v1/sandboxes/" + successor).path("state_reason").asString())
                .startsWith("restored from checkpoint " + checkpoint + " of " + onC).contains(nodeC);
        assertThat(apiB.json("POST", "/v1/sandboxes/" + successor + "/exec", Map.of(), shell("cat /workspace/notes.txt"))
                .path("stdout").asString()).contains("kept-through-the-loss");
        List<String> successorEvents = new ArrayList<>();
        apiA.get("/v1/sandboxes/" + successor + "/events").path("data").forEach(e -> successorEvents.add(e.path("type").asString()));
        assertThat(successorEvents).contains("sandbox.relocating", "sandbox.restored");
        JsonNode lost = apiA.get("/v1/nodes/" + nodeC);
        assertThat(lost.path("state").asString()).isEqualTo("lost");
        // every acknowledged create is known, running on a survivor or failed with C
        for (String id : acked) {
            JsonNode r = apiA.get("/v1/sandboxes/" + id);
            assertThat(r.path("state").asString()).as("state of acknowledged %s", id).isIn("running", "failed");
        }
        // a client that retries on another server succeeds
        String retried = apiA.json("POST", "/v1/sandboxes", Map.of(), Json.object()).path("id").asString();
        assertThat(apiB.json("POST", "/v1/sandboxes/" + retried + "/exec", Map.of(), echo("after-loss")).path("stdout").asString())
                .contains("after-loss");

        // C comes back: a new epoch of the same node, which destroys the backend sandboxes it lost
        assertThat(Files.isDirectory(c.dataDir.resolve("run").resolve(onC))).as("C's backend sandbox outlived C").isTrue();
        apiC = c.start();
        JsonNode back = apiC.get("/v1/nodes/" + nodeC);
        assertThat(back.path("state").asString()).isEqualTo("active");
        assertThat(back.path("epoch").asLong()).isEqualTo(lost.path("epoch").asLong() + 1);
        assertThat(Files.exists(c.dataDir.resolve("run").resolve(onC))).as("orphan reaped").isFalse();
        assertThat(Files.exists(c.dataDir.resolve("run").resolve(bareOnC))).as("orphan reaped").isFalse();
        assertThat(apiC.get("/v1/sandboxes/" + bareOnC).path("state").asString()).isEqualTo("failed");
        assertThat(apiC.get("/v1/sandboxes/" + onC).path("state").asString()).isEqualTo("failed");
        assertThat(apiC.json("POST", "/v1/sandboxes/" + successor + "/exec", Map.of(), shell("cat /workspace/notes.txt"))
                .path("stdout").asString()).as("C's reaping leaves the successor alone").contains("kept-through-the-loss");

        // a node frozen past its lease is fenced when it wakes: the survivors failed its sandboxes, and it rejoins by
        // itself as a new epoch, reaps what it lost and serves again, with no restart
        long epochB = apiA.get("/v1/nodes/" + nodeB).path("epoch").asLong();
        String onB = apiA.json("POST", "/v1/sandboxes", Map.of(), createIn("b")).path("id").asString();
        ObjectNode sh = Json.object();
        sh.putArray("command").add("sh");
        TerminalClient terminalViaA = TerminalClient.connect(apiA.baseUrl(),
                apiA.json("POST", "/v1/sandboxes/" + onB + "/pty", Map.of(), sh).path("attach_url").asString());
        await().atMost(Duration.ofSeconds(10)).until(() -> !terminalViaA.controls.isEmpty());
        new ProcessBuilder("kill", "-STOP", Long.toString(b.pid())).start().waitFor();
        // a request forwarded to the frozen node gives up once its lease lapses, without waiting for it to wake
        CompletableFuture<String> forwarded = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(apiA.call("POST", "/v1/sandboxes/" + onB + "/exec", Map.of(), echo("never")), StandardCharsets.UTF_8);
            } catch (ApiException e) {
                return e.code() + ": " + e.getMessage();
            }
        });
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> apiA.get("/v1/sandboxes/" + onB).path("state").asString().equals("failed"));
        assertThat(forwarded.get(30, TimeUnit.SECONDS)).as("answered while the node is still frozen").contains("node_unreachable");
        // so is a WebSocket relayed to it, which would otherwise wait for as long as it may idle
        assertThat(terminalViaA.closed.get(30, TimeUnit.SECONDS)).as("closed while the node is still frozen").isEqualTo(1011);
        assertThat(apiA.get("/v1/nodes/" + nodeB).path("state").asString()).isEqualTo("lost");
        new ProcessBuilder("kill", "-CONT", Long.toString(b.pid())).start().waitFor();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> apiA.get("/v1/nodes/" + nodeB).path("state").asString().equals("active"));
        assertThat(apiA.get("/v1/nodes/" + nodeB).path("epoch").asLong()).isEqualTo(epochB + 1);
        // the join comes first, then the new epoch takes back and reaps what its node held (many sandboxes, after the load)
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                .until(() -> Files.readString(b.log).contains("rejoined the cluster as epoch " + (epochB + 1)));
        assertThat(Files.readString(b.log)).contains("lost its lease");
        assertThat(apiA.get("/v1/sandboxes/" + onB).path("state_reason").asString()).contains("stopped renewing its lease");
        assertThat(Files.exists(b.dataDir.resolve("run").resolve(onB))).as("B reaped its lost sandbox").isFalse();
        ObjectNode key = Json.object().put("name", "after-wake");
        assertThat(apiB.json("POST", "/v1/api_keys", Map.of(), key).path("id").asString()).isNotBlank();
        String newOnB = apiB.json("POST", "/v1/sandboxes", Map.of(), createIn("b")).path("id").asString();
        assertThat(apiA.json("POST", "/v1/sandboxes/" + newOnB + "/exec", Map.of(), echo("b-is-back")).path("stdout").asString())
                .contains("b-is-back");
    }
}
