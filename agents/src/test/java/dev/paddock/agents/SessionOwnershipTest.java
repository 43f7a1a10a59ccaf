package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.toolset.AgentToolset;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Sessions on several nodes of a cluster (here: several agents layers on one store and host, each a node with an
 * owner id of its own, whose liveness the test decides): a session's loop runs on one node at a time, events sent to
 * another node are handed to the owner through the store (an interrupt among them, which the owner acts on as on its
 * own), and a turn cut off by its node's loss is run on by one survivor, exactly once: the model request under way
 * ended as an error, the tool call under way answered as lost rather than run again, while the lost node's loop
 * writes nothing more, neither events nor the session's status and usage. Real SQLite, or PostgreSQL where the
 * nodes race on the store, the subprocess driver, a scripted Messages API on loopback.
 */
class SessionOwnershipTest {
    final Set<String> live = ConcurrentHashMap.newKeySet();
    final List<ManagedAgents> others = new ArrayList<>();
    ScriptedModel model;
    AgentsFixture fx;

    @AfterEach
    void stop() {
        others.forEach(ManagedAgents::close);
        if (fx != null) fx.close();
        if (model != null) model.close();
    }

    private ManagedAgents node(ManagedAgents agents, String owner) {
        live.add(owner);
        agents.joinCluster(new ClusterMembership() {
            @Override public String selfOwner() { return owner; }
            @Override public boolean live(String ownerId) { return live.contains(ownerId); }
        });
        return agents;
    }

    private ManagedAgents another(String owner) {
        ManagedAgents agents = new ManagedAgents(fx.host, fx.store.agents(), AgentsConfig.defaults().withModel(model.baseUrl(), "k"), Clock.systemUTC());
        others.add(agents);
        return node(agents, owner);
    }

    private void say(ManagedAgents on, String session, String text) {
        on.intake().send(fx.caller, session, Map.of("events", List.of(Map.of("type", "user.message",
                "content", List.of(Map.of("type", "text", "text", text))))));
    }

    private long count(String session, SessionEventType type) {
        return fx.events(session).stream().filter(e -> e.is(type)).count();
    }

    @Test
    void eventsSentToTwoNodesAtOnceDriveOneLoopOnTheSessionsOwner() throws Exception {
        model = new ScriptedModel((results, call) -> ScriptedModel.Reply.message(List.of(text("answer " + call))).after(Duration.ofMillis(200)));
        fx = new AgentsFixture(model);
        ManagedAgents a = node(fx.agents, "node_a@1");
        ManagedAgents b = another("node_b@1");
        String session = fx.session("cloud", List.of(), List.of());

        CountDownLatch go = new CountDownLatch(1);
        ExecutorService senders = Executors.newFixedThreadPool(2);
        List<Future<?>> sent = new ArrayList<>();
        for (ManagedAgents on : List.of(a, b)) {
            sent.add(senders.submit(() -> {
                go.await();
                for (int i = 0; i < 3; i++) say(on, session, "hello " + i);
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : sent) f.get();
        senders.shutdown();

        // every message is answered: the last event is an idle after the last user message
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            List<String> types = fx.types(session);
            return types.getLast().equals("session.status_idle") && types.lastIndexOf("user.message") < types.lastIndexOf("span.model_request_end");
        });
        String owner = fx.store.agents().owners().find(session).orElseThrow().ownerId();
        assertThat(owner).isIn("node_a@1", "node_b@1");
        assertThat(a.engine().runs() + b.engine().runs()).as("loop state on one node only").isEqualTo(1);
        assertThat((owner.equals("node_a@1") ? b : a).engine().runs()).isZero();
        // one loop at a time: a turn starts only after the one before it went idle
        boolean running = false;
        for (String t : fx.types(session)) {
            if (t.equals("session.status_running")) {
                assertThat(running).as("a second loop started a turn while one ran: " + fx.types(session)).isFalse();
                running = true;
            } else if (t.equals("session.status_idle")) {
                running = false;
            }
        }
    }

    @Test
    void aToolCallCutOffByItsNodesLossIsAnsweredAsLostOnOneSurvivorAndTheCallsAfterItRun() throws Exception {
        model = AgentsFixture.twoCallsTheFirstOutlastingTheTest();
        fx = new AgentsFixture(model);
        ManagedAgents a = node(fx.agents, "node_a@1");
        ManagedAgents b = another("node_b@1");
        ManagedAgents c = another("node_c@1");
        String session = fx.session("cloud", List.of(), List.of());
        say(a, session, "run it");
        await().atMost(Duration.ofSeconds(60)).until(() -> count(session, SessionEventType.AGENT_TOOL_USE) == 2);
        assertThat(fx.store.agents().owners().find(session).orElseThrow().ownerId()).isEqualTo("node_a@1");

        // node A stops renewing its lease while its first tool call runs; two survivors handle the loss at once
        live.remove("node_a@1");
        ExecutorService survivors = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> handled = new ArrayList<>();
        for (ManagedAgents s : List.of(b, c)) {
            handled.add(survivors.submit(() -> {
                go.await();
                s.nodeLost("node_a");
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : handled) f.get();
        survivors.shutdown();

        // nobody sends anything: the survivor that took the session answers the call under way as lost (it may have
        // run in part: it is not run again), runs the call that had not started, and the turn ends
        fx.awaitIdle(session, 1);
        String owner = fx.store.agents().owners().find(session).orElseThrow().ownerId();
        assertThat(owner).isIn("node_b@1", "node_c@1");
        // the lost node's loop, still running, sees the session gone from it and stops, its tool call cut off
        await().atMost(Duration.ofSeconds(30)).until(() -> a.engine().runs() == 0);
        assertThat(count(session, SessionEventType.SESSION_STATUS_RESCHEDULED)).isEqualTo(1);
        assertThat(count(session, SessionEventType.AGENT_TOOL_USE)).isEqualTo(2);
        assertThat(count(session, SessionEventType.AGENT_TOOL_RESULT)).isEqualTo(2);
        assertThat(count(session, SessionEventType.SESSION_STATUS_IDLE)).isEqualTo(1);
        List<String> results = model.lastToolResults();
        assertThat(results).hasSize(2);
        assertThat(results.getFirst()).startsWith("this tool call was under way on a Paddock node that was lost before it finished")
                .contains("it was not run again");
        assertThat(results.getLast()).startsWith("ran-second");
        assertThat(fx.types(session).getLast()).isEqualTo("session.status_idle");
        assertThat(fx.agents.sessions().get(fx.caller, session).toWire()).containsEntry("status", "idle");
    }

    @Test
    void aModelRequestCutOffByItsNodesLossIsEndedAsAnErrorOnTheSurvivorAndAskedAgain() throws Exception {
        model = new ScriptedModel((results, call) -> call == 1
                ? ScriptedModel.Reply.message(List.of(text("never seen"))).after(Duration.ofMinutes(5))
                : ScriptedModel.Reply.message(List.of(text("done"))));
        fx = AgentsFixture.onPostgres(model);
        ManagedAgents a = node(fx.agents, "node_a@1");
        ManagedAgents b = another("node_b@1");
        String session = fx.session("cloud", List.of(), List.of());
        say(a, session, "hello");
        SessionEvent start = fx.awaitEvent(session, SessionEventType.SPAN_MODEL_REQUEST_START);

        live.remove("node_a@1");
        b.nodeLost("node_a");

        fx.awaitIdle(session, 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> a.engine().runs() == 0);
        List<SessionEvent> events = fx.events(session);
        List<SessionEvent> starts = events.stream().filter(e -> e.is(SessionEventType.SPAN_MODEL_REQUEST_START)).toList();
        List<SessionEvent> ends = events.stream().filter(e -> e.is(SessionEventType.SPAN_MODEL_REQUEST_END)).toList();
        assertThat(starts).hasSize(2);
        // every span is closed exactly once; the cut-off one as an error, before the survivor's own
        assertThat(ends).extracting(e -> e.body().get("model_request_start_id")).containsExactly(start.id(), starts.get(1).id());
        assertThat(ends.getFirst().body()).containsEntry("is_error", true);
        assertThat(ends.getLast().body()).containsEntry("is_error", false);
        assertThat(events.stream().filter(e -> e.is(SessionEventType.AGENT_MESSAGE)).map(e -> e.body().get("content").toString()))
                .singleElement().asString().contains("done");
        assertThat(fx.types(session).getLast()).isEqualTo("session.status_idle");
    }

    @Test
    void aToolCallsInterruptSentToAnotherNodeKillsItOnTheOwner() throws Exception {
        model = new ScriptedModel(results -> results == 0
                ? List.of(toolUse("toolu_1", "bash", Map.of("command", "sleep 600; echo finished")))
                : List.of(text("unexpected")));
        fx = AgentsFixture.onPostgres(model);
        ManagedAgents a = node(fx.agents, "node_a@1");
        ManagedAgents b = another("node_b@1");
        String session = fx.session("cloud", List.of(), List.of());
        say(a, session, "run it");
        fx.awaitEvent(session, SessionEventType.AGENT_TOOL_USE);

        interrupt(b, session);

        // the owner cuts the call short as for an interrupt sent to it: far sooner than the call would end
        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        assertThat(fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_TOOL_RESULT)).map(e -> e.body().toString()))
                .singleElement().asString().contains("interrupted by the user");
        assertThat(b.engine().runs()).as("nothing ran on the node the interrupt reached").isZero();
        assertThat(model.requests).hasSize(1);
    }

    @Test
    void aModelRequestsInterruptSentToAnotherNodeCancelsItOnTheOwner() throws Exception {
        model = new ScriptedModel((results, call) -> ScriptedModel.Reply.message(List.of(text("late"))).after(Duration.ofMinutes(10)));
        fx = AgentsFixture.onPostgres(model);
        ManagedAgents a = node(fx.agents, "node_a@1");
        ManagedAgents b = another("node_b@1");
        String session = fx.session("cloud", List.of(), List.of());
        say(a, session, "hello");
        fx.awaitEvent(session, SessionEventType.SPAN_MODEL_REQUEST_START);

        interrupt(b, session);

        fx.awaitIdle(session, 1);
        assertThat(fx.events(session).stream().filter(e -> e.is(SessionEventType.SPAN_MODEL_REQUEST_END)).map(SessionEvent::body))
                .singleElement().satisfies(end -> assertThat(end).containsEntry("is_error", true));
        assertThat(count(session, SessionEventType.AGENT_MESSAGE)).isZero();
    }

    @Test
    void aLoopThatLostItsSessionOverwritesNeitherTheStatusNorTheUsageOfItsNewOwner() throws Exception {
        model = new ScriptedModel(results -> List.of(toolUse("toolu_1", "bash", Map.of("command", "echo hi"))));
        fx = AgentsFixture.onPostgres(model);
        ManagedAgents a = node(fx.agents, "node_a@1");
        ManagedAgents b = another("node_b@1");
        // a self-hosted session whose one allowed model request is spent: after its worker's result its loop's next
        // write is the session's status (idle, budget reached), with no event before it
        Agent agent = fx.agents.agents().create(fx.caller, Map.of("name", "a", "model", "claude-test",
                "tools", List.of(Map.of("type", AgentToolset.TYPE, "configs", List.of()))));
        Environment env = fx.agents.environments().create(fx.caller, Map.of("name", "e", "config", Map.of("type", "self_hosted")));
        String session = fx.agents.sessions().create(fx.caller, Map.of("agent", agent.id(), "environment_id", env.id(),
                "paddock_limits", Map.of("max_model_requests", 1))).id();
        say(a, session, "run it");
        SessionEvent use = fx.awaitEvent(session, SessionEventType.AGENT_TOOL_USE);

        // while A's loop waits for the worker, a survivor takes the session over (A missed its lease, say) and has not
        // run it yet: the session is rescheduling, owned by node X
        live.add("node_x@1");
        assertThat(fx.store.agents().owners().claim(session, "node_a@1", "node_x@1", false)).isTrue();
        Resource row = fx.store.agents().resources().find(Resource.SESSION, fx.caller.tenantId(), session).orElseThrow();
        Resource moved = fx.store.agents().resources().update(new Session(row).withStatus(Session.RESCHEDULING, Instant.now()).row());
        long seq = fx.events(session).getLast().seq();

        b.intake().send(fx.caller, session, Map.of("events", List.of(Map.of("type", "user.tool_result", "tool_use_id", use.id(),
                "content", List.of(Map.of("type", "text", "text", "hi"))))));

        await().atMost(Duration.ofSeconds(60)).until(() -> a.engine().runs() == 0);
        Resource after = fx.store.agents().resources().find(Resource.SESSION, fx.caller.tenantId(), session).orElseThrow();
        assertThat(after.state()).isEqualTo(Session.RESCHEDULING);
        assertThat(after.revision()).as("nothing of A's reached the row").isEqualTo(moved.revision());
        assertThat(after.body().get("usage")).isEqualTo(moved.body().get("usage"));
        assertThat(fx.store.agents().events().after(session, seq, 100)).extracting(SessionEvent::type).containsExactly("user.tool_result");
    }

    private void interrupt(ManagedAgents on, String session) {
        on.intake().send(fx.caller, session, Map.of("events", List.of(Map.of("type", "user.interrupt"))));
    }
}
