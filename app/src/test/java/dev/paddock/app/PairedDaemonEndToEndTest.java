package dev.paddock.app;

import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.daemon.DaemonRuntime;
import dev.paddock.app.daemon.PairedDaemon;
import dev.paddock.app.serve.ServeSettings;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A real paired daemon (the object {@code paddock runtime pair} runs, with the bubblewrap driver) paired with a real
 * Paddock server over a WebSocket on loopback, through a TCP forwarder that can cut the connection like a network
 * failure: sandboxes created with {@code "driver":"daemon"} run on the daemon's bwrap, survive a dropped connection
 * it reconnects from, and fail with the closed-tab error once the daemon stops.
 */
@Tag("bwrap")
class PairedDaemonEndToEndTest {
    /** One server for the class (its start is most of a test's time); each test pairs a daemon of its own. */
    static BwrapServer server;
    static PaddockClient api;
    LoopbackGate network;
    Path daemonDir;
    DaemonRuntime daemon;
    CompletableFuture<Boolean> serving;

    @BeforeAll
    static void startServer() throws Exception {
        server = new BwrapServer("pdm");
        api = server.api;
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) server.close();
    }

    @BeforeEach
    void start() throws Exception {
        network = new LoopbackGate(server.app.port());
        daemonDir = Files.createTempDirectory(Path.of("/tmp"), "pdmd");
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (daemon != null) daemon.close();
            network.close();
        } finally {
            BwrapDriver local = new BwrapDriver(BwrapConfig.defaults(daemonDir));
            local.list().forEach(local::destroy);
            BwrapServer.removeDataDir(daemonDir);
        }
    }

    /** Pairs an in-process daemon through the forwarder with a fresh code, and serves until it is closed. */
    private String pairDaemon(int capacity) throws Exception {
        JsonNode code = api.json("POST", "/v1/runtimes/pairing_codes", Map.of(), obj().put("kind", "daemon"));
        assertThat(code.path("kind").asString()).isEqualTo("daemon");
        assertThat(code.path("command").asString()).startsWith("paddock runtime pair ppc_").contains("--server http://");
        ServeSettings local = ServeSettings.resolve(Map.of("data_dir", daemonDir.toString(), "driver", "bwrap"), Map.of(), null, daemonDir);
        daemon = DaemonRuntime.start(local, URI.create("http://127.0.0.1:" + network.port()), "laptop.example", capacity,
                Duration.ofMinutes(1), line -> System.out.println("[daemon] " + line));
        daemon.daemon().pair(code.path("code").asString());
        PairedDaemon d = daemon.daemon();
        serving = CompletableFuture.supplyAsync(() -> {
            try {
                return d.run();
            } catch (InterruptedException e) {
                return false;
            }
        });
        String runtimeId = d.runtimeId();
        await().atMost(Duration.ofSeconds(20)).until(() -> "online".equals(runtime(runtimeId).path("status").asString())
                && runtime(runtimeId).path("capacity").asInt() == capacity);
        return runtimeId;
    }

    private JsonNode runtime(String id) {
        return api.get("/v1/runtimes/" + id);
    }

    private JsonNode exec(String sandbox, String... argv) {
        ObjectNode body = obj();
        var arr = body.putArray("argv");
        for (String a : argv) arr.add(a);
        return api.json("POST", "/v1/sandboxes/" + sandbox + "/exec", Map.of(), body.put("timeout_seconds", 60));
    }

    @Test
    void aPairedDaemonIsListedWithItsKindAndRunsSandboxesWithItsLocalDriver() throws Exception {
        String runtimeId = pairDaemon(2);
        JsonNode listed = api.get("/v1/runtimes").path("data").get(0);
        assertThat(listed.path("id").asString()).isEqualTo(runtimeId);
        assertThat(listed.path("kind").asString()).isEqualTo("daemon");
        assertThat(listed.path("engine").asString()).isEqualTo("daemon");
        assertThat(listed.path("host_name").asString()).isEqualTo("laptop.example");
        assertThat(listed.path("driver").asString()).isEqualTo("bwrap");
        assertThat(listed.path("capacity").asInt()).isEqualTo(2);

        JsonNode created = api.json("POST", "/v1/sandboxes", Map.of(), obj().put("driver", "daemon"));
        String id = created.path("id").asString();
        assertThat(created.path("driver").asString()).isEqualTo("daemon");
        assertThat(runtime(runtimeId).path("sandbox_ids").get(0).asString()).isEqualTo(id);

        // the command runs in a bwrap sandbox of the daemon's machine: its workspace is in the daemon's data dir
        JsonNode hello = exec(id, "/bin/sh", "-c", "echo hello > /workspace/made-here; echo out; echo err >&2; exit 3");
        assertThat(hello.path("exit_code").asInt()).as(hello.toString()).isEqualTo(3);
        assertThat(hello.path("stdout").asString()).isEqualTo("out\n");
        assertThat(hello.path("stderr").asString()).isEqualTo("err\n");
        assertThat(Files.readString(daemonDir.resolve("sandboxes").resolve(id).resolve("workspace").resolve("made-here"))).isEqualTo("hello\n");
        assertThat(server.dataDir.resolve("sandboxes").resolve(id)).doesNotExist();

        byte[] data = new byte[700_000]; // several relay chunks each way
        for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 31 + i / 7);
        api.upload("PUT", "/v1/sandboxes/" + id + "/files/content", Map.of("path", "/workspace/up/data.bin"), () -> new ByteArrayInputStream(data));
        JsonNode size = exec(id, "/bin/sh", "-c", "wc -c < /workspace/up/data.bin");
        assertThat(size.path("stdout").asString().strip()).isEqualTo("700000");
        try (InputStream in = api.download("/v1/sandboxes/" + id + "/files/content", Map.of("path", "up/data.bin"))) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
        JsonNode ls = api.get("/v1/sandboxes/" + id + "/files/list", Map.of("path", "/workspace/up"));
        assertThat(ls.toString()).contains("data.bin");

        // a workspace_tar checkpoint travels as an archive from the daemon's workspace, and a restore puts it back
        String cp = api.json("POST", "/v1/sandboxes/" + id + "/checkpoints", Map.of(), null).path("id").asString();
        exec(id, "/bin/sh", "-c", "rm -r /workspace/up && echo changed > /workspace/made-here");
        api.json("POST", "/v1/sandboxes/" + id + "/checkpoints/" + cp + "/restore", Map.of(), null);
        assertThat(exec(id, "/bin/sh", "-c", "wc -c < /workspace/up/data.bin; cat /workspace/made-here").path("stdout").asString())
                .isEqualTo("700000\nhello\n");

        // a path out of /workspace is refused (by the server before it travels, and by the daemon's workspace if it did)
        assertThatThrownBy(() -> api.download("/v1/sandboxes/" + id + "/files/content", Map.of("path", "/etc/passwd")).close())
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("path_outside_workspace"));

        // the daemon's sandboxes have no network: a request for one is refused before anything is made
        ObjectNode limited = obj().put("driver", "daemon");
        limited.putObject("network").put("type", "limited").putArray("allowed_hosts").add("example.com");
        assertThatThrownBy(() -> api.json("POST", "/v1/sandboxes", Map.of(), limited))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo("network_unsupported"));

        api.call("DELETE", "/v1/sandboxes/" + id, Map.of(), null);
        await().atMost(Duration.ofSeconds(20)).until(() -> !Files.exists(daemonDir.resolve("sandboxes").resolve(id).resolve("workspace").resolve("made-here")));
        assertThat(new BwrapDriver(BwrapConfig.defaults(daemonDir)).list()).isEmpty();
        assertThat(runtime(runtimeId).path("sandbox_ids")).isEmpty();
    }

    @Test
    void aDroppedConnectionIsReconnectedAndTheSandboxKept() throws Exception {
        String runtimeId = pairDaemon(1);
        String id = api.json("POST", "/v1/sandboxes", Map.of(), obj().put("driver", "daemon")).path("id").asString();
        exec(id, "/bin/sh", "-c", "echo kept > /workspace/state");

        network.cut();
        // the next op waits for the daemon to come back within the reconnect grace, then runs on the same sandbox
        JsonNode after = exec(id, "cat", "/workspace/state");
        assertThat(after.path("stdout").asString()).isEqualTo("kept\n");
        assertThat(runtime(runtimeId).path("status").asString()).isEqualTo("online");
        assertThat(api.get("/v1/sandboxes/" + id).path("state").asString()).isEqualTo("running");
        assertThat(serving).isNotDone();
    }

    @Test
    void aStoppedDaemonFailsTheNextOpWithTheClosedRuntimeError() throws Exception {
        String runtimeId = pairDaemon(1);
        String id = api.json("POST", "/v1/sandboxes", Map.of(), obj().put("driver", "daemon")).path("id").asString();
        assertThat(exec(id, "true").path("exit_code").asInt()).isZero();

        daemon.close(); // what SIGTERM or Ctrl-C of `paddock runtime pair` runs
        assertThat(serving.get()).as("run() ends because the daemon was closed").isTrue();
        assertThatThrownBy(() -> exec(id, "true")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.code()).isEqualTo("sandbox_tab_gone");
            assertThat(e.getMessage()).contains("paired daemon").contains(runtimeId);
        });
        assertThat(runtime(runtimeId).path("status").asString()).isEqualTo("offline");
        assertThat(new BwrapDriver(BwrapConfig.defaults(daemonDir)).list()).as("the daemon ends its sandboxes when it stops").isEmpty();
        await().atMost(Duration.ofSeconds(30)).until(() -> "runtime_disconnected".equals(api.get("/v1/sandboxes/" + id).path("state_reason").asString()));
    }

    @Test
    void withNoDaemonOnlineACreateSaysHowToPairOne() {
        assertThatThrownBy(() -> api.json("POST", "/v1/sandboxes", Map.of(), obj().put("driver", "daemon")))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo("no_sandbox_tab");
                    assertThat(e.getMessage()).contains("paddock runtime pair");
                });
    }

    @Test
    void aTabCodeDoesNotPairADaemon() throws Exception {
        String tabCode = api.json("POST", "/v1/runtimes/pairing_codes", Map.of(), obj().put("kind", "browser-vm")).path("code").asString();
        ServeSettings local = ServeSettings.resolve(Map.of("data_dir", daemonDir.toString(), "driver", "bwrap"), Map.of(), null, daemonDir);
        daemon = DaemonRuntime.start(local, URI.create(server.app.url()), "laptop.example", 1, Duration.ofMinutes(1), line -> {});
        assertThatThrownBy(() -> daemon.daemon().pair(tabCode)).isInstanceOf(PairedDaemon.PairingRefused.class)
                .hasMessageContaining("pairing_code_invalid").hasMessageContaining("browser-vm");
    }

    private static ObjectNode obj() {
        return JsonNodeFactory.instance.objectNode();
    }

}
