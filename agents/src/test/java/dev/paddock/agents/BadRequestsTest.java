package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.store.PageRequest;
import dev.paddock.toolset.AgentToolset;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Bad agent, environment, session and event bodies: each is refused with its error code and a message that names the
 * field by its path ({@code tools[1].configs[0].name}), pinned word for word.
 */
class BadRequestsTest {
    private static final String GOLDEN = "/bad-requests.txt";
    private static final Pattern LIST = Pattern.compile("\\[([^\\[\\]]*, [^\\[\\]]*)]");

    private final List<String> lines = new ArrayList<>();

    @Test
    void badBodiesAreRefusedWithTheirCodeAndFieldPath() throws IOException {
        try (ScriptedModel model = new ScriptedModel(n -> List.of(Map.of("type", "text", "text", "ok")));
             AgentsFixture f = new AgentsFixture(model)) {
            ManagedAgents m = f.agents;
            agents(f, m);
            environments(f, m);
            sessions(f, m);
            ids(f, m);
        }
        String actual = String.join("\n", lines) + "\n";
        Files.writeString(Path.of("target", "bad-requests.actual.txt"), actual);
        assertThat(actual).isEqualTo(golden());
    }

    private void agents(AgentsFixture f, ManagedAgents m) {
        refuse("agent.unknown", () -> m.agents().create(f.caller, agent("colour", "red")));
        refuse("agent.name.missing", () -> m.agents().create(f.caller, Map.of("model", "x")));
        refuse("agent.name.type", () -> m.agents().create(f.caller, Map.of("name", 5, "model", "x")));
        refuse("agent.model.missing", () -> m.agents().create(f.caller, Map.of("name", "a")));
        refuse("agent.model.blank", () -> m.agents().create(f.caller, Map.of("name", "a", "model", " ")));
        refuse("agent.model.unknown", () -> m.agents().create(f.caller, Map.of("name", "a", "model", Map.of("id", "x", "size", 1))));
        refuse("agent.model.id", () -> m.agents().create(f.caller, Map.of("name", "a", "model", Map.of("speed", "fast"))));
        refuse("agent.model.effort", () -> m.agents().create(f.caller, Map.of("name", "a", "model", Map.of("id", "x", "effort", 5))));
        refuse("agent.model.speed", () -> m.agents().create(f.caller, Map.of("name", "a", "model", Map.of("id", "x", "speed", "x".repeat(17)))));
        refuse("agent.model.type", () -> m.agents().create(f.caller, Map.of("name", "a", "model", 5)));
        refuse("agent.description", () -> m.agents().create(f.caller, agent("description", "d".repeat(2049))));
        refuse("agent.mcp.array", () -> m.agents().create(f.caller, agent("mcp_servers", "x")));
        refuse("agent.mcp.object", () -> m.agents().create(f.caller, agent("mcp_servers", List.of("x"))));
        refuse("agent.mcp.unknown", () -> m.agents().create(f.caller, agent("mcp_servers", List.of(Map.of("name", "a", "url", "https://a", "x", 1)))));
        refuse("agent.mcp.url", () -> m.agents().create(f.caller, agent("mcp_servers", List.of(Map.of("name", "a")))));
        refuse("agent.mcp.scheme", () -> m.agents().create(f.caller, agent("mcp_servers", List.of(Map.of("name", "a", "url", "ftp://a")))));
        refuse("agent.mcp.name", () -> m.agents().create(f.caller, agent("mcp_servers", List.of(Map.of("url", "https://a")))));
        refuse("agent.tools.array", () -> m.agents().create(f.caller, agent("tools", Map.of())));
        refuse("agent.tools.type", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("name", "x")))));
        refuse("agent.tools.unknown_type", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", "web")))));
        refuse("agent.toolset.unknown", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE, "x", 1)))));
        refuse("agent.toolset.default", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE, "default_config", 1)))));
        refuse("agent.toolset.default.unknown", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE,
                "default_config", Map.of("name", "bash"))))));
        refuse("agent.toolset.enabled", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE,
                "default_config", Map.of("enabled", "yes"))))));
        refuse("agent.toolset.policy", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE,
                "default_config", Map.of("permission_policy", Map.of("type", "never")))))));
        refuse("agent.toolset.policy.object", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE,
                "configs", List.of(Map.of("name", "bash", "permission_policy", "always")))))));
        refuse("agent.toolset.configs", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE, "configs", 1)))));
        refuse("agent.toolset.config.name", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE,
                "configs", List.of(Map.of("enabled", true)))))));
        refuse("agent.toolset.config.tool", () -> m.agents().create(f.caller, agent("tools", List.of(custom("lookup"), Map.of("type", AgentToolset.TYPE,
                "configs", List.of(Map.of("name", "telnet")))))));
        refuse("agent.custom.unknown", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", "custom", "name", "a", "x", 1)))));
        refuse("agent.custom.name", () -> m.agents().create(f.caller, agent("tools", List.of(custom("a b")))));
        refuse("agent.custom.twice", () -> m.agents().create(f.caller, agent("tools", List.of(custom("a"), custom("a")))));
        refuse("agent.custom.builtin", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", AgentToolset.TYPE), custom("bash")))));
        refuse("agent.custom.schema", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", "custom", "name", "a",
                "description", "d", "input_schema", Map.of("type", "string"))))));
        refuse("agent.custom.description", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", "custom", "name", "a",
                "input_schema", Map.of("type", "object"))))));
        refuse("agent.mcp_toolset.server", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", "mcp_toolset", "mcp_server_name", "docs")))));
        refuse("agent.mcp_toolset.unknown", () -> m.agents().create(f.caller, agent("tools", List.of(Map.of("type", "mcp_toolset", "mcp_server_name", "docs",
                "name", "x")))));
        refuse("agent.skills", () -> m.agents().create(f.caller, agent("skills", List.of(Map.of("type", "anthropic")))));
        refuse("agent.skills.type", () -> m.agents().create(f.caller, agent("skills", List.of(Map.of("type", "plugin", "skill_id", "x")))));
        refuse("agent.skills.anthropic", () -> m.agents().create(f.caller, agent("skills", List.of(Map.of("type", "anthropic", "skill_id", "xlsx")))));
        refuse("agent.skills.id", () -> m.agents().create(f.caller, agent("skills", List.of(Map.of("type", "custom", "skill_id", "xlsx")))));
        refuse("agent.skills.unknown", () -> m.agents().create(f.caller, agent("skills", List.of(Map.of("type", "custom",
                "skill_id", "skill_0123456789abcdefghjkmnpqrs")))));
        refuse("agent.skills.version", () -> m.agents().create(f.caller, agent("skills", List.of(Map.of("type", "custom",
                "skill_id", "skill_0123456789abcdefghjkmnpqrs", "version", 3)))));
        refuse("agent.skills.twice", () -> m.agents().create(f.caller, agent("skills", List.of(Map.of("type", "custom",
                "skill_id", "skill_0123456789abcdefghjkmnpqrs"), Map.of("type", "custom", "skill_id", "skill_0123456789abcdefghjkmnpqrs")))));
        Map<String, Object> many = new LinkedHashMap<>();
        for (int i = 0; i < 17; i++) many.put("k" + i, "v");
        refuse("agent.metadata.keys", () -> m.agents().create(f.caller, agent("metadata", many)));
        refuse("agent.metadata.value", () -> m.agents().create(f.caller, agent("metadata", Map.of("k", 1))));
        refuse("agent.metadata.key", () -> m.agents().create(f.caller, agent("metadata", Map.of("", "v"))));

        String id = agentId(f);
        refuse("agent.update.unknown", () -> m.agents().update(f.caller, id, Map.of("colour", "red")));
        refuse("agent.update.version", () -> m.agents().update(f.caller, id, Map.of("version", 7)));
        refuse("agent.update.version.type", () -> m.agents().update(f.caller, id, Map.of("version", "1")));
        refuse("agent.update.tools", () -> m.agents().update(f.caller, id, Map.of("tools", List.of(Map.of("type", "mcp_toolset", "mcp_server_name", "docs")))));
        refuse("agent.update.metadata", () -> m.agents().update(f.caller, id, Map.of("metadata", many)));
        refuse("agent.update.name", () -> m.agents().update(f.caller, id, Map.of("name", "")));
        refuse("agent.get.version", () -> m.agents().get(f.caller, id, 9));
        refuse("agent.get.id", () -> m.agents().get(f.caller, "nope", null));
        m.agents().archive(f.caller, id);
        refuse("agent.update.archived", () -> m.agents().update(f.caller, id, Map.of("name", "b")));
        refuse("session.agent.archived", () -> m.sessions().create(f.caller, Map.of("agent", id, "environment_id", env(f))));
    }

    private void environments(AgentsFixture f, ManagedAgents m) {
        refuse("env.unknown", () -> m.environments().create(f.caller, Map.of("name", "e", "colour", "red")));
        refuse("env.name", () -> m.environments().create(f.caller, Map.of()));
        refuse("env.config.object", () -> m.environments().create(f.caller, Map.of("name", "e", "config", "cloud")));
        refuse("env.config.type", () -> m.environments().create(f.caller, Map.of("name", "e", "config", Map.of())));
        refuse("env.config.bad_type", () -> m.environments().create(f.caller, Map.of("name", "e", "config", Map.of("type", "kubernetes"))));
        refuse("env.self_hosted.unknown", () -> m.environments().create(f.caller, Map.of("name", "e", "config", Map.of("type", "self_hosted", "x", 1))));
        refuse("env.none.disabled", () -> m.environments().create(f.caller, Map.of("name", "e", "config", Map.of("type", "none"))));
        refuse("env.cloud.unknown", () -> m.environments().create(f.caller, Map.of("name", "e", "config", Map.of("type", "cloud", "x", 1))));
        refuse("env.networking.object", () -> m.environments().create(f.caller, cloud("networking", "open")));
        refuse("env.networking.type", () -> m.environments().create(f.caller, cloud("networking", Map.of("type", "open"))));
        refuse("env.networking.missing_type", () -> m.environments().create(f.caller, cloud("networking", Map.of("allowed_hosts", List.of()))));
        refuse("env.networking.unrestricted", () -> m.environments().create(f.caller, cloud("networking", Map.of("type", "unrestricted",
                "allowed_hosts", List.of()))));
        refuse("env.networking.limited.unknown", () -> m.environments().create(f.caller, cloud("networking", Map.of("type", "limited", "x", 1))));
        refuse("env.networking.hosts", () -> m.environments().create(f.caller, cloud("networking", Map.of("type", "limited",
                "allowed_hosts", List.of("a.example", "https://b.example/")))));
        refuse("env.networking.hosts.array", () -> m.environments().create(f.caller, cloud("networking", Map.of("type", "limited",
                "allowed_hosts", "a.example"))));
        refuse("env.networking.pm", () -> m.environments().create(f.caller, cloud("networking", Map.of("type", "limited",
                "allow_package_managers", "yes"))));
        refuse("env.networking.mcp", () -> m.environments().create(f.caller, cloud("networking", Map.of("type", "limited",
                "allow_mcp_servers", 1))));
        refuse("env.packages.object", () -> m.environments().create(f.caller, cloud("packages", List.of())));
        refuse("env.packages.unknown", () -> m.environments().create(f.caller, cloud("packages", Map.of("brew", List.of("x")))));
        refuse("env.packages.cargo", () -> m.environments().create(f.caller, cloud("packages", Map.of("cargo", List.of("serde")))));
        refuse("env.packages.pip", () -> m.environments().create(f.caller, cloud("packages", Map.of("pip", List.of("requests", "--index-url")))));
        refuse("env.packages.apt", () -> m.environments().create(f.caller, cloud("packages", Map.of("apt", List.of(1)))));
        refuse("env.driver", () -> m.environments().create(f.caller, cloud(EnvironmentConfigs.DRIVER_FIELD, "vm")));
        refuse("env.driver.type", () -> m.environments().create(f.caller, cloud(EnvironmentConfigs.DRIVER_FIELD, 1)));
        refuse("env.scope", () -> m.environments().create(f.caller, Map.of("name", "e", "scope", "world")));
        refuse("env.metadata", () -> m.environments().create(f.caller, Map.of("name", "e", "metadata", Map.of("k", true))));

        String id = env(f);
        refuse("env.update.unknown", () -> m.environments().update(f.caller, id, Map.of("x", 1)));
        refuse("env.update.type", () -> m.environments().update(f.caller, id, Map.of("config", Map.of("type", "self_hosted"))));
        refuse("env.update.networking", () -> m.environments().update(f.caller, id, Map.of("config", Map.of("type", "cloud",
                "networking", Map.of("type", "none")))));
        refuse("env.update.scope", () -> m.environments().update(f.caller, id, Map.of("scope", 1)));
        refuse("env.key.unknown", () -> m.environments().createKey(f.caller, id, Map.of("x", 1)));
        m.environments().archive(f.caller, id);
        refuse("env.update.archived", () -> m.environments().update(f.caller, id, Map.of("name", "b")));
        refuse("session.env.archived", () -> m.sessions().create(f.caller, Map.of("agent", agentId(f), "environment_id", id)));
    }

    private void sessions(AgentsFixture f, ManagedAgents m) {
        String agent = agentId(f);
        String env = env(f);
        refuse("session.unknown", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "x", 1)));
        refuse("session.env", () -> m.sessions().create(f.caller, Map.of("agent", agent)));
        refuse("session.agent", () -> m.sessions().create(f.caller, Map.of("environment_id", env)));
        refuse("session.agent.type", () -> m.sessions().create(f.caller, Map.of("environment_id", env, "agent", Map.of("type", "agent_with_overrides", "id", agent))));
        refuse("session.agent.unknown", () -> m.sessions().create(f.caller, Map.of("environment_id", env, "agent", Map.of("type", "agent", "id", agent, "x", 1))));
        refuse("session.agent.version", () -> m.sessions().create(f.caller, Map.of("environment_id", env, "agent", Map.of("type", "agent", "id", agent, "version", "1"))));
        refuse("session.agent.no_version", () -> m.sessions().create(f.caller, Map.of("environment_id", env, "agent", Map.of("type", "agent", "id", agent, "version", 4))));
        refuse("session.agent.object", () -> m.sessions().create(f.caller, Map.of("environment_id", env, "agent", 5)));
        refuse("session.resources", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "resources", List.of(Map.of()))));
        resources(f, m, agent, env);
        refuse("session.vaults", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "vault_ids", List.of("v"))));
        refuse("session.budget", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "budget", Map.of())));
        refuse("session.budget.amount", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "budget",
                Map.of("type", "limit", "max_list_cost", Map.of("amount", "25.00", "currency", "USD")))));
        refuse("session.budget.currency", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "budget",
                Map.of("type", "limit", "max_list_cost", Map.of("amount", "2500", "currency", "EUR")))));
        refuse("session.budget.unpriced", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "budget",
                Map.of("type", "limit", "max_list_cost", Map.of("amount", "2500", "currency", "USD")))));
        refuse("session.limits.empty", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "paddock_limits", Map.of())));
        refuse("session.limits.zero", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "paddock_limits",
                Map.of("max_tokens", 0))));
        refuse("session.title", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env, "title", 1)));
        refuse("session.initial.content", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env,
                "initial_events", List.of(Map.of("type", "user.message")))));
        refuse("session.initial.block", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env,
                "initial_events", List.of(Map.of("type", "user.message", "content", List.of(Map.of("type", "audio")))))));
        refuse("session.initial.text", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env,
                "initial_events", List.of(Map.of("type", "user.message", "content", List.of(Map.of("type", "text", "text", 1)))))));
        refuse("session.initial.type", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env,
                "initial_events", List.of(Map.of("type", "agent.message")))));
        refuse("session.initial.tool_use_id", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", env,
                "initial_events", List.of(Map.of("type", "user.tool_confirmation", "tool_use_id", "sevt_x", "result", "allow")))));

        String session = f.session("self_hosted", List.of(), List.of());
        refuse("session.update.agent", () -> m.sessions().update(f.caller, session, Map.of("agent", agent)));
        refuse("session.update.unknown", () -> m.sessions().update(f.caller, session, Map.of("x", 1)));
        refuse("session.update.budget", () -> m.sessions().update(f.caller, session, Map.of("budget",
                Map.of("type", "limit", "max_list_cost", Map.of("amount", "2500", "currency", "USD")))));
        refuse("session.update.metadata", () -> m.sessions().update(f.caller, session, Map.of("metadata", Map.of("k", List.of()))));
        refuse("events.missing", () -> m.intake().send(f.caller, session, Map.of()));
        refuse("events.unknown", () -> m.intake().send(f.caller, session, Map.of("events", List.of(Map.of("type", "user.message",
                "content", List.of(Map.of("type", "text", "text", "hi")), "x", 1)))));
        refuse("events.second.content", () -> m.intake().send(f.caller, session, Map.of("events", List.of(
                Map.of("type", "user.message", "content", List.of(Map.of("type", "text", "text", "hi"))),
                Map.of("type", "user.message", "content", List.of(Map.of("type", "text", "text", "hi"), "x"))))));
        refuse("events.tool_result", () -> m.intake().send(f.caller, session, Map.of("events", List.of(Map.of("type", "user.tool_result",
                "tool_use_id", "sevt_nope")))));
        refuse("events.confirmation.result", () -> m.intake().send(f.caller, session, Map.of("events", List.of(Map.of("type", "user.tool_confirmation",
                "result", "maybe")))));
    }

    /** Ids in the SDKs' format that name nothing are 404s for every resource; only what cannot be an id is a 400. */
    private void resources(AgentsFixture f, ManagedAgents m, String agent, String env) {
        String file = m.files().upload(f.caller, "notes.txt", "text/plain", new ByteArrayInputStream(new byte[] {1})).id();
        String repo = "https://github.com/acme/demo";
        Function<List<Map<String, Object>>, Runnable> create = rs -> () -> m.sessions().create(f.caller,
                Map.of("agent", agent, "environment_id", env, "resources", rs));
        refuse("resources.memory_store", create.apply(List.of(Map.of("type", "memory_store", "memory_store_id", "memstore_1"))));
        refuse("resources.type", create.apply(List.of(Map.of("type", "bucket"))));
        refuse("resources.file.unknown_field", create.apply(List.of(Map.of("type", "file", "file_id", file, "path", "/x"))));
        refuse("resources.file.missing", create.apply(List.of(Map.of("type", "file"))));
        refuse("resources.file.id", create.apply(List.of(Map.of("type", "file", "file_id", "sesn_1"))));
        refuse("resources.file.absent", create.apply(List.of(Map.of("type", "file", "file_id", "file_011CZkZaBF1tNoB5wlCeusgy"))));
        refuse("resources.mount.relative", create.apply(List.of(Map.of("type", "file", "file_id", file, "mount_path", "data/x"))));
        refuse("resources.mount.dotdot", create.apply(List.of(Map.of("type", "file", "file_id", file, "mount_path", "/workspace/../etc/x"))));
        refuse("resources.mount.outside", create.apply(List.of(Map.of("type", "file", "file_id", file, "mount_path", "/etc/passwd"))));
        refuse("resources.mount.outputs", create.apply(List.of(Map.of("type", "file", "file_id", file, "mount_path", "/mnt/session/outputs/x"))));
        refuse("resources.mount.reserved", create.apply(List.of(Map.of("type", "file", "file_id", file, "mount_path", "/workspace/.paddock/x"))));
        refuse("resources.mount.trailing", create.apply(List.of(Map.of("type", "file", "file_id", file, "mount_path", "/workspace/x/"))));
        refuse("resources.mount.overlap", create.apply(List.of(Map.of("type", "file", "file_id", file, "mount_path", "/workspace/a"),
                Map.of("type", "github_repository", "url", repo, "mount_path", "/workspace/a/b"))));
        refuse("resources.mount.same", create.apply(List.of(Map.of("type", "file", "file_id", file), Map.of("type", "file", "file_id", file))));
        refuse("resources.repo.url.missing", create.apply(List.of(Map.of("type", "github_repository"))));
        refuse("resources.repo.url.host", create.apply(List.of(Map.of("type", "github_repository", "url", "https://gitlab.com/acme/demo"))));
        refuse("resources.repo.url.credentials", create.apply(List.of(Map.of("type", "github_repository", "url", "https://user:pw@github.com/acme/demo"))));
        refuse("resources.repo.url.shape", create.apply(List.of(Map.of("type", "github_repository", "url", "https://github.com/acme/demo/tree/main"))));
        refuse("resources.repo.url.query", create.apply(List.of(Map.of("type", "github_repository", "url", repo + "?x=1"))));
        refuse("resources.repo.checkout.type", create.apply(List.of(Map.of("type", "github_repository", "url", repo, "checkout", Map.of("type", "tag")))));
        refuse("resources.repo.checkout.sha", create.apply(List.of(Map.of("type", "github_repository", "url", repo,
                "checkout", Map.of("type", "commit", "sha", "main")))));
        refuse("resources.repo.checkout.branch", create.apply(List.of(Map.of("type", "github_repository", "url", repo,
                "checkout", Map.of("type", "branch", "name", "-x..y")))));
        refuse("resources.repo.token.no_vault", create.apply(List.of(Map.of("type", "github_repository", "url", repo, "authorization_token", "ghp_x"))));
    }

    private void ids(AgentsFixture f, ManagedAgents m) {
        String agent = agentId(f);
        String env = env(f);
        String sdkAgent = "agent_011CZkZAtmR3yMPDzynEDxu7";
        String sdkEnv = "env_011CZkZAtmR3yMPDzynEDxu7";
        String sdkSession = "sesn_011CZkZAtmR3yMPDzynEDxu7";
        refuse("id.agent.get", () -> m.agents().get(f.caller, sdkAgent, null));
        refuse("id.agent.get.version", () -> m.agents().get(f.caller, sdkAgent, 1));
        refuse("id.agent.update", () -> m.agents().update(f.caller, sdkAgent, Map.of("name", "b")));
        refuse("id.agent.archive", () -> m.agents().archive(f.caller, sdkAgent));
        refuse("id.agent.versions", () -> m.agents().versions(f.caller, sdkAgent, PageRequest.first(5)));
        refuse("id.agent.prefix", () -> m.agents().get(f.caller, sdkSession, null));
        refuse("id.agent.characters", () -> m.agents().get(f.caller, "agent_01/../x", null));
        refuse("id.agent.length", () -> m.agents().get(f.caller, "agent_" + "A".repeat(65), null));
        refuse("id.agent.empty_body", () -> m.agents().get(f.caller, "agent_", null));
        refuse("id.env.get", () -> m.environments().get(f.caller, sdkEnv));
        refuse("id.env.update", () -> m.environments().update(f.caller, sdkEnv, Map.of("name", "b")));
        refuse("id.env.archive", () -> m.environments().archive(f.caller, sdkEnv));
        refuse("id.env.delete", () -> m.environments().delete(f.caller, sdkEnv));
        refuse("id.env.keys", () -> m.environments().listKeys(f.caller, sdkEnv, PageRequest.first(5)));
        refuse("id.env.prefix", () -> m.environments().get(f.caller, sdkAgent));
        refuse("id.session.get", () -> m.sessions().get(f.caller, sdkSession));
        refuse("id.session.update", () -> m.sessions().update(f.caller, sdkSession, Map.of("title", "t")));
        refuse("id.session.archive", () -> m.sessions().archive(f.caller, sdkSession));
        refuse("id.session.delete", () -> m.sessions().delete(f.caller, sdkSession));
        refuse("id.session.events", () -> m.intake().send(f.caller, sdkSession, Map.of("events", List.of(Map.of("type", "user.message",
                "content", List.of(Map.of("type", "text", "text", "hi")))))));
        refuse("id.session.prefix", () -> m.sessions().get(f.caller, "session_011CZkZAtmR3yMPDzynEDxu7"));
        refuse("id.session.create.env", () -> m.sessions().create(f.caller, Map.of("agent", agent, "environment_id", sdkEnv)));
        refuse("id.session.create.agent", () -> m.sessions().create(f.caller, Map.of("agent", sdkAgent, "environment_id", env)));
        refuse("id.work.get", () -> m.work().get(env, "work_011CZkZAtmR3yMPDzynEDxu7"));
        refuse("id.work.prefix", () -> m.work().get(env, "wrk_011CZkZAtmR3yMPDzynEDxu7"));
    }

    private void refuse(String label, Runnable call) {
        try {
            call.run();
            lines.add(label + " ACCEPTED");
        } catch (PaddockException e) {
            lines.add(label + " " + e.code() + " " + sortedLists(e.getMessage()).replaceAll("(agent|env|sesn|file)_[0-9a-z]{26}", "$1_ID"));
        }
    }

    /** Messages that print a set list it in no fixed order; sort it so the line is stable. */
    private static String sortedLists(String message) {
        Matcher m = LIST.matcher(message);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String[] items = m.group(1).split(", ");
            Arrays.sort(items);
            m.appendReplacement(out, Matcher.quoteReplacement("[" + String.join(", ", items) + "]"));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static Map<String, Object> agent(String field, Object value) {
        Map<String, Object> body = new HashMap<>();
        body.put("name", "a");
        body.put("model", "claude-x");
        body.put(field, value);
        return body;
    }

    private static Map<String, Object> custom(String name) {
        return Map.of("type", "custom", "name", name, "description", "d", "input_schema", Map.of("type", "object"));
    }

    private static Map<String, Object> cloud(String field, Object value) {
        Map<String, Object> config = new HashMap<>();
        config.put("type", "cloud");
        config.put(field, value);
        return Map.of("name", "e", "config", config);
    }

    /** A new agent's id. */
    private static String agentId(AgentsFixture f) {
        f.agents.agents().create(f.caller, agent("description", "d"));
        return f.store.agents().resources().list(Resource.AGENT, "default", ResourceFilter.newestFirst(false), PageRequest.first(1))
                .data().getFirst().id();
    }

    /** A new environment's id. */
    private static String env(AgentsFixture f) {
        String name = "env-" + System.nanoTime();
        f.agents.environments().create(f.caller, Map.of("name", name));
        return f.store.agents().resources().list(Resource.ENVIRONMENT, "default",
                ResourceFilter.newestFirst(false), PageRequest.first(1)).data().getFirst().id();
    }

    private static String golden() throws IOException {
        try (InputStream in = BadRequestsTest.class.getResourceAsStream(GOLDEN)) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
