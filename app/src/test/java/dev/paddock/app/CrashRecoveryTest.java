package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.store.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The whole server process is SIGKILLed while clients write files and run commands that append to a log, and
 * while another client creates sandboxes. After a restart on the same data dir every sandbox is accounted for
 * (running and usable again, or terminated by the reaper; none left creating or terminating) and every write the
 * API acknowledged is there with its exact content. Real JVM, bwrap, files, and the store on each database: SQLite in
 * the data directory, and PostgreSQL.
 */
@Tag("bwrap")
@ParameterizedClass
@EnumSource(CrashRecoveryTest.Database.class)
class CrashRecoveryTest {
    enum Database { SQLITE, POSTGRESQL }

    @Parameter Database database;
    static final String KEY = "pdk_crash_test_admin_key_0123456789abcdef";
    static final int SANDBOXES = 3;
    static final int ACKS_BEFORE_KILL = 60;

    Path dataDir;
    ServerProcess server;

    @BeforeEach
    void setUp() throws Exception {
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pdc");
        server = new ServerProcess(dataDir, KEY, database == Database.SQLITE ? null : TestPostgres.storeUrl(TestPostgres.freshDatabase()));
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            // a test that stopped the server itself has no URL left, and nothing to delete through it
            if (!Files.exists(dataDir.resolve("paddock.url"))) return;
            PaddockClient api = new PaddockClient(Files.readString(dataDir.resolve("paddock.url")).trim(), KEY);
            for (JsonNode s : api.get("/v1/sandboxes", Map.of("limit", 1000)).path("data")) {
                api.call("DELETE", "/v1/sandboxes/" + s.path("id").asString(), Map.of(), null);
            }
        } catch (RuntimeException e) {
            System.err.println("cleanup: " + e.getMessage() + "\n" + server.logTail());
        } finally {
            server.stop();
            destroyLeftovers();
            BwrapServer.removeDataDir(dataDir);
            Files.deleteIfExists(server.log);
        }
    }

    /** Whatever still runs on the backend (a leak the test reports) must not outlive the test. */
    private void destroyLeftovers() {
        try {
            var driver = new dev.paddock.driver.bwrap.BwrapDriver(dev.paddock.driver.bwrap.BwrapConfig.defaults(dataDir));
            try (driver) {
                driver.list().forEach(driver::destroy);
            }
        } catch (Exception e) {
            System.err.println("could not destroy leftover sandboxes in " + dataDir + ": " + e.getMessage());
        }
    }

    @Test
    void everyAcknowledgedWriteAndEverySandboxSurvivesASigkill() throws Exception {
        PaddockClient api = server.start();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < SANDBOXES; i++) ids.add(api.json("POST", "/v1/sandboxes", Map.of(), Json.read("{}")).path("id").asString());

        Map<String, Map<String, String>> ackedFiles = new ConcurrentHashMap<>();
        Map<String, Set<Integer>> ackedLines = new ConcurrentHashMap<>();
        Set<String> ackedCreates = ConcurrentHashMap.newKeySet();
        ids.forEach(id -> {
            ackedFiles.put(id, new ConcurrentHashMap<>());
            ackedLines.put(id, ConcurrentHashMap.newKeySet());
        });
        CountDownLatch enoughAcks = new CountDownLatch(ACKS_BEFORE_KILL);
        AtomicBoolean dead = new AtomicBoolean();
        ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor();
        for (String id : ids) {
            writers.submit(() -> {
                for (int n = 0; !dead.get(); n++) {
                    String path = "w/f" + n + ".txt";
                    String content = id + " file " + n + " " + UUID.randomUUID() + "\n".repeat(n % 3);
                    try {
                        api.upload("PUT", "/v1/sandboxes/" + id + "/files/content", Map.of("path", path),
                                () -> new java.io.ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)));
                    } catch (RuntimeException e) {
                        return; // the server is gone: this write was not acknowledged
                    }
                    ackedFiles.get(id).put(path, content);
                    enoughAcks.countDown();
                }
            });
            writers.submit(() -> {
                for (int n = 0; !dead.get(); n++) {
                    ObjectNode body = Json.object();
                    body.putArray("argv").add("sh").add("-c").add("echo " + n + " >> log");
                    try {
                        JsonNode r = api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), body);
                        if (r.path("exit_code").asInt(-1) != 0) throw new AssertionError("append failed: " + r);
                    } catch (RuntimeException e) {
                        return;
                    }
                    ackedLines.get(id).add(n);
                    enoughAcks.countDown();
                }
            });
        }
        writers.submit(() -> {
            while (!dead.get()) {
                try {
                    ackedCreates.add(api.json("POST", "/v1/sandboxes", Map.of(), Json.read("{}")).path("id").asString());
                } catch (RuntimeException e) {
                    return;
                }
            }
        });

        assertThat(enoughAcks.await(30, TimeUnit.SECONDS)).as("writes were acknowledged before the kill").isTrue();
        server.kill();
        dead.set(true);
        writers.shutdown();
        assertThat(writers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

        PaddockClient again = server.start();
        JsonNode all = again.get("/v1/sandboxes", Map.of("limit", 1000, "include_terminated", true)).path("data");
        Map<String, JsonNode> byId = new java.util.HashMap<>();
        for (JsonNode s : all) byId.put(s.path("id").asString(), s);
        assertThat(byId.keySet()).as("every acknowledged sandbox is known").containsAll(ids).containsAll(ackedCreates);
        for (JsonNode s : all) {
            String state = s.path("state").asString();
            assertThat(state).as("state of %s after the restart", s.path("id").asString()).isIn("running", "terminated", "failed");
            if (state.equals("terminated")) assertThat(s.path("state_reason").asString()).isNotBlank();
        }
        // The backend runs exactly the sandboxes the store calls running: none leaks past a terminated record.
        for (String running : backendSandboxes()) {
            assertThat(byId.get(running)).as("backend sandbox %s has a record", running).isNotNull();
            assertThat(byId.get(running).path("state").asString()).as("state of %s, which the backend still runs", running)
                    .isIn("running", "suspended");
        }
        for (String id : ids) {
            JsonNode s = byId.get(id);
            if (s.path("state").asString().equals("running")) {
                ObjectNode echo = Json.object().put("command", "echo alive");
                assertThat(again.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), echo).path("stdout").asString())
                        .as("%s is re-attached and usable", id).isEqualTo("alive\n");
            }
            for (Map.Entry<String, String> f : ackedFiles.get(id).entrySet()) {
                assertThat(read(again, id, f.getKey())).as("%s:%s", id, f.getKey()).isEqualTo(f.getValue());
            }
            Set<Integer> lines = new HashSet<>();
            String log = ackedLines.get(id).isEmpty() ? "" : read(again, id, "log");
            for (String line : log.split("\n")) if (!line.isEmpty()) lines.add(Integer.parseInt(line));
            assertThat(lines).as("lines appended to %s's log", id).containsAll(ackedLines.get(id));
        }
        int files = ackedFiles.values().stream().mapToInt(Map::size).sum();
        int appends = ackedLines.values().stream().mapToInt(Set::size).sum();
        assertThat(files + appends).isGreaterThanOrEqualTo(ACKS_BEFORE_KILL);

        // deleting every sandbox after the restart, and stopping, leaves no disk image or cgroup of them behind
        for (JsonNode s : again.get("/v1/sandboxes", Map.of("limit", 1000)).path("data")) {
            again.call("DELETE", "/v1/sandboxes/" + s.path("id").asString(), Map.of(), null);
        }
        server.stop();
        assertThat(Files.readAllLines(Path.of("/proc/self/mountinfo"))).as("mounts under the data directory")
                .noneMatch(l -> l.contains(dataDir.toString()));
        assertThat(loopDevicesOf(dataDir)).as("loop devices of the data directory's images").isEmpty();
        try (var groups = Files.find(Path.of("/sys/fs/cgroup"), 6, (p, a) -> a.isDirectory() && byId.containsKey(p.getFileName().toString()))) {
            assertThat(groups.toList()).as("cgroups of the sandboxes").isEmpty();
        }
    }

    /** The loop devices backed by a file under {@code dir}, once the kernel's auto-clear had time to detach them. */
    private static String loopDevicesOf(Path dir) throws Exception {
        String mine = "";
        for (int i = 0; i < 100; i++) {
            Process p = new ProcessBuilder("losetup", "-a").redirectErrorStream(true).start();
            mine = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> l.contains(dir.toString())).reduce("", (a, b) -> a + b + "\n");
            p.waitFor();
            if (mine.isEmpty()) return mine;
            Thread.sleep(100);
        }
        return mine;
    }

    @Test
    void aForkCutByASigkillNeverRunsWithHalfAWorkspace() throws Exception {
        PaddockClient api = server.start();
        String source = api.json("POST", "/v1/sandboxes", Map.of(), Json.read("{}")).path("id").asString();
        int files = 1500;
        ObjectNode fill = Json.object().put("command", "mkdir /workspace/d && python3 -c \"import os\nfor i in range(" + files
                + "): open('/workspace/d/f%d' % i, 'wb').write(os.urandom(65536))\"");
        assertThat(api.json("POST", "/v1/sandboxes/" + source + "/exec", Map.of(), fill).path("exit_code").asInt()).isZero();

        Thread forking = Thread.ofVirtual().start(() -> {
            try {
                api.json("POST", "/v1/sandboxes/" + source + "/fork", Map.of(), null);
            } catch (RuntimeException cutOff) {
                // the server is killed under it
            }
        });
        // kill while the fork's files are being copied: once the first of them is in its workspace
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (copiedSoFar(source) == 0 && System.nanoTime() < deadline) Thread.sleep(2);
        assertThat(copiedSoFar(source)).as("the copy began").isPositive();
        server.kill();
        forking.join();

        PaddockClient again = server.start();
        for (JsonNode s : again.get("/v1/sandboxes", Map.of("limit", 1000, "include_terminated", true)).path("data")) {
            String id = s.path("id").asString();
            if (id.equals(source)) continue;
            String state = s.path("state").asString();
            if (state.equals("running")) {
                // only a fork whose copy had finished before the kill may run, and then with every file
                ObjectNode count = Json.object().put("command", "ls /workspace/d | wc -l");
                assertThat(again.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), count).path("stdout").asString().trim())
                        .as("files of the running fork %s", id).isEqualTo(Integer.toString(files));
            } else {
                assertThat(state).as("the cut fork %s", id).isIn("failed", "terminated");
            }
        }
    }

    /** Files in the fork's copy of {@code d}: the other sandbox's, on the backend. */
    private long copiedSoFar(String source) throws IOException {
        for (String id : backendSandboxes()) {
            if (id.equals(source)) continue;
            Path d = dataDir.resolve("sandboxes").resolve(id).resolve("workspace").resolve("d");
            if (!Files.isDirectory(d)) return 0;
            try (var files = Files.list(d)) {
                return files.count();
            } catch (IOException gone) {
                return 0;
            }
        }
        return 0;
    }

    /** The sandboxes the bwrap driver runs on this data dir: one {@code run/<id>} directory each. */
    private List<String> backendSandboxes() throws java.io.IOException {
        Path run = dataDir.resolve("run");
        if (!Files.isDirectory(run)) return List.of();
        try (var dirs = Files.list(run)) {
            return dirs.map(d -> d.getFileName().toString()).filter(n -> n.startsWith("sbx_")).toList();
        }
    }

    private static String read(PaddockClient api, String id, String path) throws Exception {
        try (InputStream in = api.download("/v1/sandboxes/" + id + "/files/content", Map.of("path", path))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
