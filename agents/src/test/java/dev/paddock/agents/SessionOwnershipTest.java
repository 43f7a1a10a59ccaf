package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.agents.SessionEventType;
import java.time.Clock;
import java.time.Duration;
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
 * another node are handed to the owner through the store, and a turn cut off by its node's loss is run on by one
 * survivor, exactly once, while the lost node's loop writes nothing more. Real SQLite, the subprocess driver, a
 * scripted Messages API on loopback.
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
    void aTurnCutOffByItsNodesLossRunsOnOnOneSurvivorExactlyOnce() throws Exception {
        model = new ScriptedModel(results -> results == 0
                ? List.of(toolUse("toolu_1", "bash", Map.of("command", "sleep 3; echo ran-$RANDOM")))
                : List.of(text("done")));
        fx = new AgentsFixture(model);
        ManagedAgents a = node(fx.agents, "node_a@1");
        ManagedAgents b = another("node_b@1");
        ManagedAgents c = another("node_c@1");
        String session = fx.session("cloud", List.of(), List.of());
        say(a, session, "run it");
        fx.awaitEvent(session, SessionEventType.AGENT_TOOL_USE);
        assertThat(fx.store.agents().owners().find(session).orElseThrow().ownerId()).isEqualTo("node_a@1");

        // node A stops renewing its lease while its tool call runs; two survivors handle the loss at once
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

        // nobody sends anything: the survivor that took the session runs the cut-off tool call and the turn ends
        fx.awaitIdle(session, 1);
        String owner = fx.store.agents().owners().find(session).orElseThrow().ownerId();
        assertThat(owner).isIn("node_b@1", "node_c@1");
        // the lost node's loop, still running, tried to record its tool result and was refused: it wrote nothing
        await().atMost(Duration.ofSeconds(30)).until(() -> a.engine().runs() == 0);
        assertThat(count(session, SessionEventType.SESSION_STATUS_RESCHEDULED)).isEqualTo(1);
        assertThat(count(session, SessionEventType.AGENT_TOOL_USE)).isEqualTo(1);
        assertThat(count(session, SessionEventType.AGENT_TOOL_RESULT)).isEqualTo(1);
        assertThat(count(session, SessionEventType.SESSION_STATUS_IDLE)).isEqualTo(1);
        assertThat(model.lastToolResults()).singleElement().asString().startsWith("ran-");
        assertThat(fx.types(session).getLast()).isEqualTo("session.status_idle");
        assertThat(fx.agents.sessions().get(fx.caller, session).toWire()).containsEntry("status", "idle");
    }
}
