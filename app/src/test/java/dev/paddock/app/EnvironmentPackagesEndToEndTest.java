package dev.paddock.app;

import dev.paddock.app.client.Json;
import tools.jackson.databind.json.JsonMapper;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.PaddockClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An environment's {@code packages}, with real parts: real apt, pip and npm in a real bwrap builder sandbox, through
 * the egress proxy, from registries served on loopback as the configured mirrors (this workplace reaches the public
 * registries only at addresses the egress proxy rightly refuses); installed once, cached, and found by a session's
 * bash tool (a scripted model asks for it).
 */
@Tag("bwrap")
// one server for the class: the second test only asks for refusals
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EnvironmentPackagesEndToEndTest {
    static final String PROBE = "command -v paddock-hello; paddock-hello; python3 -c 'import tinypkg; print(tinypkg.VALUE)'; "
            + "node -e \"console.log(require('tinynpm'))\"";
    EgressUpstreams up;
    LocalPackageRepos repos;
    SessionNetworkEndToEndTest.ToolCallingModel model;
    BwrapServer server;
    PaddockClient api;

    @BeforeAll
    void start() throws Exception {
        up = new EgressUpstreams();
        repos = new LocalPackageRepos();
        model = new SessionNetworkEndToEndTest.ToolCallingModel(PROBE);
        server = new BwrapServer("pk", Map.of("egress_test_loopback_ports", up.httpPort() + "," + repos.port(),
                "packages_pip_index_url", "http://localhost:" + up.httpPort() + "/simple/", "packages_npm_registry", repos.npmRegistry(),
                "packages_apt_sources", repos.aptSources().toString(), "model_base_url", model.baseUrl(), "model_api_key", "test-model-key"));
        api = server.api;
    }

    @AfterAll
    void stop() throws Exception {
        try {
            server.close();
        } finally {
            up.close();
            repos.close();
            model.close();
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
        String agentId = AgentSessions.toolsetAgent(api);

        String first = AgentSessions.sendGo(api, agentId, envId);
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> model.finished() || failed(first));
        String out = model.toolResults.getFirst();
        assertThat(out).as("the bash tool's output").startsWith("/workspace/.paddock/packages/apt/usr/bin/paddock-hello\nhello-from-apt\n42\n42");
        try (var cached = Files.list(server.dataDir.resolve("packages"))) {
            assertThat(cached.map(p -> p.getFileName().toString())).hasSize(1).allMatch(n -> n.endsWith(".tar"));
        }

        // a second session of the same environment gets the cached packages: no second builder sandbox
        await().atMost(Duration.ofSeconds(30)).until(() -> "idle".equals(api.get("/v1/sessions/" + first).path("status").asString()));
        String second = AgentSessions.sendGo(api, agentId, envId);
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
            env.putObject("config").put("type", "cloud").set("packages", JsonMapper.shared().valueToTree(bad));
            assertThatThrownBy(() -> api.json("POST", "/v1/environments", Map.of(), env)).as(bad.toString()).hasMessageContaining("must be a package name");
        }
        ObjectNode cargo = obj().put("name", "cargo");
        cargo.putObject("config").put("type", "cloud").putObject("packages").putArray("cargo").add("ripgrep");
        assertThatThrownBy(() -> api.json("POST", "/v1/environments", Map.of(), cargo)).hasMessageContaining("not yet cargo");
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
        return Json.object();
    }
}
