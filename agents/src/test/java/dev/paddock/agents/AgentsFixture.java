package dev.paddock.agents;

import static org.awaitility.Awaitility.await;

import dev.paddock.access.Principal;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.store.JdbcStore;
import dev.paddock.store.testing.TestPostgres;
import dev.paddock.toolset.AgentToolset;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/** The Managed Agents layer without HTTP: SQLite, the subprocess driver, the host, and the scripted model. */
final class AgentsFixture implements AutoCloseable {
    /**
     * A model whose first answer is two bash calls, the first one (printing ran-first) outlasting any test, the second
     * quick (ran-second), and whose next answer ends the turn: for turns whose process is lost during the first call.
     */
    static ScriptedModel twoCallsTheFirstOutlastingTheTest() throws IOException {
        return new ScriptedModel(results -> results == 0
                ? List.of(ScriptedModel.toolUse("toolu_1", "bash", Map.of("command", "sleep 60; echo ran-first")),
                        ScriptedModel.toolUse("toolu_2", "bash", Map.of("command", "echo ran-second")))
                : List.of(ScriptedModel.text("done")));
    }

    final Principal caller = new Principal("default", "key_test", false);
    final Path dataDir;
    final JdbcStore store;
    final RuntimeHost host;
    final ManagedAgents agents;

    AgentsFixture(ScriptedModel model) throws IOException {
        this(model, UnaryOperator.identity());
    }

    /** As above, with settings changed by {@code tune} (a small retry budget, say). */
    AgentsFixture(ScriptedModel model, UnaryOperator<AgentsConfig> tune) throws IOException {
        this(model, tune, dir -> JdbcStore.openSqlite(dir.resolve("paddock.db")));
    }

    /** As above, on a fresh PostgreSQL database ({@link TestPostgres}; skipped where none is configured). */
    static AgentsFixture onPostgres(ScriptedModel model) throws IOException {
        return new AgentsFixture(model, UnaryOperator.identity(), dir -> JdbcStore.open(TestPostgres.freshDatabase(), Clock.systemUTC()));
    }

    private AgentsFixture(ScriptedModel model, UnaryOperator<AgentsConfig> tune, Function<Path, JdbcStore> open) throws IOException {
        dataDir = Files.createTempDirectory("paddock-agents-test");
        store = open.apply(dataDir);
        host = new RuntimeHost(HostConfig.defaults(dataDir).withDefaultDriver("subprocess"), store,
                List.of(new SubprocessDriver(dataDir)), Clock.systemUTC());
        host.start();
        agents = new ManagedAgents(host, store.agents(), tune.apply(AgentsConfig.defaults().withModel(model.baseUrl(), "k")), Clock.systemUTC());
    }

    /** A session of a new agent with the toolset ({@code toolConfigs}: per-tool configs) in a new environment of {@code envType}. */
    String session(String envType, List<Map<String, Object>> toolConfigs, List<Map<String, Object>> customTools) {
        List<Object> tools = new ArrayList<>();
        tools.add(Map.of("type", AgentToolset.TYPE, "configs", toolConfigs));
        tools.addAll(customTools);
        Agent agent = agents.agents().create(caller, Map.of("name", "a", "model", "claude-test", "tools", tools));
        Environment env = agents.environments().create(caller, Map.of("name", "e-" + System.nanoTime(), "config", Map.of("type", envType)));
        return agents.sessions().create(caller, Map.of("agent", agent.id(), "environment_id", env.id())).id();
    }

    void say(String session, String text) {
        agents.intake().send(caller, session, Map.of("events", List.of(Map.of("type", "user.message",
                "content", List.of(Map.of("type", "text", "text", text))))));
    }

    List<SessionEvent> events(String session) {
        return store.agents().events().after(session, 0, 10_000);
    }

    List<String> types(String session) {
        return events(session).stream().map(SessionEvent::type).toList();
    }

    /** Waits until the session has an event of this type; returns the first. */
    SessionEvent awaitEvent(String session, SessionEventType type) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> events(session).stream().anyMatch(e -> e.is(type)));
        return events(session).stream().filter(e -> e.is(type)).findFirst().orElseThrow();
    }

    /** Waits until the session has gone idle {@code times} times; returns the last idle event. */
    SessionEvent awaitIdle(String session, int times) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() ->
                events(session).stream().filter(e -> e.is(SessionEventType.SESSION_STATUS_IDLE)).count() >= times);
        return events(session).stream().filter(e -> e.is(SessionEventType.SESSION_STATUS_IDLE)).toList().get(times - 1);
    }

    @Override
    public void close() {
        agents.close();
        host.close();
        store.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temp dir; best effort
        }
    }
}
