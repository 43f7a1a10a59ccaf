package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.core.testing.Prerequisites;
import dev.paddock.driver.docker.DockerConfig;
import dev.paddock.driver.docker.DockerDriver;
import dev.paddock.driver.gvisor.GvisorConfig;
import dev.paddock.driver.gvisor.GvisorDriver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The drivers with a kernel boundary of their own, through a real server whose default driver is bwrap: each is
 * loaded beside it, a create that names it runs there (exec, files, suspend and resume over REST), and as the
 * default driver its warm pool serves plain creates. Real dockerd (the test command starts one) and runsc.
 */
@Tag("bwrap")
class KernelBoundaryDriversEndToEndTest {
    @ParameterizedTest
    @ValueSource(strings = {"gvisor", "docker"})
    void aCreateNamingTheDriverRunsThereBesideTheDefault(String driver) throws Exception {
        requireRunnable(driver);
        try (BwrapServer server = new BwrapServer("pkb")) {
            PaddockClient api = server.api;
            JsonNode listed = driverRow(api, driver);
            assertThat(listed.path("available").asBoolean()).as(listed.toString()).isTrue();

            String id = api.json("POST", "/v1/sandboxes", Map.of(), obj().put("driver", driver)).path("id").asString();
            assertThat(api.get("/v1/sandboxes/" + id).path("driver").asString()).isEqualTo(driver);
            JsonNode r = sh(api, id, "echo hi > note.txt; cat note.txt; id -u");
            assertThat(r.path("exit_code").asInt()).as(r.toString()).isZero();
            assertThat(r.path("stdout").asString()).startsWith("hi\n");
            assertThat(r.path("stdout").asString().lines().toList().get(1)).as("not root on the host").isNotEqualTo("0");
            byte[] note = api.call("GET", "/v1/sandboxes/" + id + "/files/content", Map.of("path", "/workspace/note.txt"), null);
            assertThat(new String(note, StandardCharsets.UTF_8)).isEqualTo("hi\n");

            assertThat(api.json("POST", "/v1/sandboxes/" + id + "/suspend", Map.of(), null).path("state").asString()).isEqualTo("suspended");
            assertThat(api.json("POST", "/v1/sandboxes/" + id + "/resume", Map.of(), null).path("state").asString()).isEqualTo("running");
            assertThat(sh(api, id, "cat note.txt").path("stdout").asString()).isEqualTo("hi\n");
            api.call("DELETE", "/v1/sandboxes/" + id, Map.of(), null);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"gvisor", "docker"})
    void asTheDefaultDriverItsWarmPoolServesPlainCreates(String driver) throws Exception {
        requireRunnable(driver);
        try (BwrapServer server = new BwrapServer("pkw", Map.of("driver", driver, "warm_pool_size", "1"))) {
            PaddockClient api = server.api;
            await().atMost(Duration.ofSeconds(60)).until(() -> warm(api) == 1);
            String id = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
            assertThat(api.get("/v1/sandboxes/" + id).path("driver").asString()).isEqualTo(driver);
            assertThat(warm(api)).as("the create took the pooled sandbox").isZero();
            assertThat(sh(api, id, "echo pooled").path("stdout").asString()).isEqualTo("pooled\n");
            await().atMost(Duration.ofSeconds(60)).until(() -> warm(api) == 1); // and the pool refills
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"gvisor", "docker"})
    void browserSandboxesKeepChromiumsOwnSandbox(String driver) throws Exception {
        requireRunnable(driver);
        try (BwrapServer server = new BwrapServer("pkc", Map.of("docker_runtime", "runsc"))) {
            PaddockClient api = server.api;
            assertThat(driverRow(api, driver).path("port_facts").path("available").toString()).contains("chromium_sandbox");
            String id = api.json("POST", "/v1/sandboxes", Map.of(), obj().put("template", "browser").put("driver", driver)).path("id").asString();

            JsonNode script = api.json("POST", "/v1/sandboxes/" + id + "/browser/script", Map.of(), obj().put("timeout_seconds", 300)
                    .put("script", "import { chromium } from 'playwright';\nconst b = await chromium.launch();\nconst p = await b.newPage();\n"
                            + "await p.setContent('<title>inside</title>');\nconsole.log(await p.title());\nawait b.close();\n"));
            assertThat(script.path("stdout").asString()).as(script.toString()).isEqualTo("inside\n");

            JsonNode shot = api.json("POST", "/v1/sandboxes/" + id + "/browser/actions", Map.of(), obj().put("action", "screenshot"));
            assertThat(shot.path("ok").asBoolean()).as(shot.toString()).isTrue();
            assertThat(shot.path("screenshot").asString()).isNotEmpty();
            // the step-mode browser still runs: its processes show Chromium's sandbox (a zygote) and no --no-sandbox
            String procs = sh(api, id, "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done").path("stdout").asString();
            assertThat(procs).contains("--type=zygote").doesNotContain("--no-sandbox");
            api.call("DELETE", "/v1/sandboxes/" + id, Map.of(), null);
        }
    }

    private static void requireRunnable(String driver) {
        List<String> problems = switch (driver) {
            case "docker" -> DockerDriver.checkHost(DockerConfig.defaults(Path.of("/tmp")));
            case "gvisor" -> GvisorDriver.checkHost(GvisorConfig.defaults(Path.of("/tmp")));
            default -> throw new IllegalArgumentException(driver);
        };
        Prerequisites.require(problems.isEmpty(), () -> driver + " cannot run here: " + problems);
    }

    private static JsonNode driverRow(PaddockClient api, String driver) {
        for (JsonNode d : api.get("/v1/drivers").path("data")) if (d.path("driver").asString().equals(driver)) return d;
        throw new AssertionError("driver " + driver + " is not listed");
    }

    /** The warm pool's waiting sandboxes, from the server's metrics. */
    private static int warm(PaddockClient api) {
        String metrics = new String(api.call("GET", "/metrics", Map.of(), null), StandardCharsets.UTF_8);
        return metrics.lines().filter(l -> l.startsWith("paddock_sandboxes_warm") && !l.contains("browser"))
                .mapToInt(l -> (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static JsonNode sh(PaddockClient api, String id, String command) {
        return api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), obj().put("command", command).put("timeout_seconds", 60));
    }

    private static ObjectNode obj() {
        return Json.object();
    }
}
