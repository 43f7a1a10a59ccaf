package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An environment's {@code packages}, with real parts: real apt, pip and npm in a real bwrap builder sandbox, through
 * the egress proxy, from registries served on loopback as the configured mirrors (this workplace reaches the public
 * registries only at addresses the egress proxy rightly refuses); installed once, cached, and found by a session's
 * bash tool (a scripted model asks for it).
 */
@Tag("bwrap")
class EnvironmentPackagesEndToEndTest {
    static final String PROBE = "command -v paddock-hello; paddock-hello; python3 -c 'import tinypkg; print(tinypkg.VALUE)'; "
            + "node -e \"console.log(require('tinynpm'))\"";
    EgressUpstreams up;
    LocalPackageRepos repos;
    SessionNetworkEndToEndTest.ToolCallingModel model;
    Path dataDir;
    PaddockApp app;
    PaddockClient api;

    @BeforeEach
    void start() throws Exception {
        up = new EgressUpstreams();
        repos = new LocalPackageRepos();
        model = new SessionNetworkEndToEndTest.ToolCallingModel(PROBE);
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pk");
        app = PaddockApp.start(ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "bwrap",
                "egress_test_loopback_ports", up.httpPort() + "," + repos.port(), "packages_pip_index_url", "http://localhost:" + up.httpPort() + "/simple/",
                "packages_npm_registry", repos.npmRegistry(), "packages_apt_sources", repos.aptSources().toString(),
                "model_base_url", model.baseUrl(), "model_api_key", "test-model-key"), Map.of(), null, dataDir));
        api = new PaddockClient(app.url(), app.createdAdminKey().orElseThrow());
    }

    @AfterEach
    void stop() throws Exception {
        try {
            app.close();
        } finally {
            up.close();
            repos.close();
            model.close();
            var bwrap = new dev.paddock.driver.bwrap.BwrapDriver(dev.paddock.driver.bwrap.BwrapConfig.defaults(dataDir));
            bwrap.list().forEach(bwrap::destroy); // sandboxes outlive a server by design; a test leaves none behind
            new ProcessBuilder("rm", "-rf", dataDir.toString()).start().waitFor();
        }
    }

    @Test
    void aSessionFindsItsEnvironmentsAptPipAndNpmPackagesInstalledOnceAndCached() throws Exception {
        ObjectNode env = obj().put("name", "with-packages");
        ObjectNode packages = env.putObject("config").put("type", "cloud").putObject("packages");
        packages.putArray("apt").add("paddock-hello");
        packages.putArray("pip").add("tinypkg");
        packages.putArray("npm").add("tinynpm@1.0.0");
        String envId = api.json("POST", "/v1/environments", Map.of(), env).path("id").asString();
        String agentId = agent();

        String first = session(agentId, envId);
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> model.finished() || failed(first));
        String out = model.toolResults.getFirst();
        assertThat(out).as("the bash tool's output").startsWith("/workspace/.paddock/packages/apt/usr/bin/paddock-hello\nhello-from-apt\n42\n42");
        try (var cached = Files.list(dataDir.resolve("packages"))) {
            assertThat(cached.map(p -> p.getFileName().toString())).hasSize(1).allMatch(n -> n.endsWith(".tar"));
        }

        // a second session of the same environment gets the cached packages: no second builder sandbox
        await().atMost(Duration.ofSeconds(30)).until(() -> "idle".equals(api.get("/v1/sessions/" + first).path("status").asString()));
        String second = session(agentId, envId);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                "idle".equals(api.get("/v1/sessions/" + second).path("status").asString())
                        && !api.get("/v1/sessions/" + second).path("paddock_sandbox_id").isNull());
        List<String> sessionSandboxes = List.of(sandboxOf(first), sandboxOf(second));
        List<String> others = new ArrayList<>();
        for (JsonNode s : api.get("/v1/sandboxes", Map.of("include_terminated", true, "limit", 100)).path("data")) {
            if (!sessionSandboxes.contains(s.path("id").asString())) others.add(s.path("id").asString());
        }
        assertThat(others).as("one builder for both sessions").hasSize(1);
        // the builder reached the package registries through the egress proxy, audited like any sandbox
        List<String> decisions = new ArrayList<>();
        for (JsonNode r : api.get("/v1/sandboxes/" + others.getFirst() + "/egress", Map.of("limit", 1000)).path("data")) {
            decisions.add(r.path("host").asString() + " " + r.path("decision").asString());
        }
        assertThat(decisions).contains("localhost allowed").doesNotContain("localhost denied");
    }

    @Test
    void badPackageListsAreRefusedWhenTheEnvironmentIsCreated() {
        for (var bad : List.of(Map.of("npm", List.of("--registry=http://evil")), Map.of("apt", List.of("tree; rm -rf /")), Map.of("pip", List.of("-e .")))) {
            ObjectNode env = obj().put("name", "bad-" + bad.keySet().iterator().next());
            env.putObject("config").put("type", "cloud").set("packages", PaddockClient.JSON.valueToTree(bad));
            assertThatThrownBy(() -> api.json("POST", "/v1/environments", Map.of(), env)).as(bad.toString()).hasMessageContaining("must be a package name");
        }
        ObjectNode cargo = obj().put("name", "cargo");
        cargo.putObject("config").put("type", "cloud").putObject("packages").putArray("cargo").add("ripgrep");
        assertThatThrownBy(() -> api.json("POST", "/v1/environments", Map.of(), cargo)).hasMessageContaining("not yet cargo");
    }

    private String agent() {
        ObjectNode agent = obj().put("name", "pkg-agent").put("model", "test-model");
        agent.putArray("tools").addObject().put("type", "agent_toolset_20260401");
        return api.json("POST", "/v1/agents", Map.of(), agent).path("id").asString();
    }

    private String session(String agentId, String envId) {
        String id = api.json("POST", "/v1/sessions", Map.of(), obj().put("agent", agentId).put("environment_id", envId)).path("id").asString();
        ObjectNode send = obj();
        send.putArray("events").addObject().put("type", "user.message").putArray("content").addObject().put("type", "text").put("text", "go");
        api.json("POST", "/v1/sessions/" + id + "/events", Map.of(), send);
        return id;
    }

    /** A session whose loop failed says so in a session.error event: stop waiting and show it. */
    private boolean failed(String session) {
        for (JsonNode e : api.get("/v1/sessions/" + session + "/events", Map.of("limit", 100)).path("data")) {
            if (e.path("type").asString().equals("session.error")) throw new AssertionError("the session failed: " + e);
        }
        return false;
    }

    private String sandboxOf(String session) {
        return api.get("/v1/sessions/" + session).path("paddock_sandbox_id").asString();
    }

    private static ObjectNode obj() {
        return PaddockClient.JSON.createObjectNode();
    }
}
