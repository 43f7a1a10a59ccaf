package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.agents.SessionEventType;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server alone (no cluster) killed during a turn: the process that starts next on the same store finds the session
 * still running with no loop, and takes the turn on as a survivor takes a lost node's: the tool call that was under
 * way is answered as cut off (not run again), the call after it runs, and the session ends the turn idle. Here the
 * killed process is an agents layer whose loop is left as it is (it writes nothing more before the test ends), the
 * next one a second agents layer on the same store. Real SQLite, the subprocess driver, a scripted Messages API.
 */
class RestartedServerSessionsTest {
    ScriptedModel model;
    AgentsFixture fx;
    ManagedAgents restarted;

    @AfterEach
    void stop() {
        if (restarted != null) restarted.close();
        if (fx != null) fx.close();
        if (model != null) model.close();
    }

    @Test
    void aTurnCutOffByTheServersDeathGoesOnInTheNextProcessWithItsToolCallAnsweredAsCutOff() throws Exception {
        model = AgentsFixture.twoCallsTheFirstOutlastingTheTest();
        fx = new AgentsFixture(model);
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "run it");
        await().atMost(Duration.ofSeconds(60)).until(() -> fx.types(session).stream().filter("agent.tool_use"::equals).count() == 2);

        // the server dies here; the next process starts on the same store
        restarted = new ManagedAgents(fx.host, fx.store.agents(), AgentsConfig.defaults().withModel(model.baseUrl(), "k"), Clock.systemUTC());
        restarted.resumeCutOffTurns();

        fx.awaitIdle(session, 1);
        assertThat(fx.types(session)).contains("session.status_rescheduled");
        assertThat(fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_TOOL_RESULT)).count()).isEqualTo(2);
        List<String> results = model.lastToolResults();
        assertThat(results).hasSize(2);
        assertThat(results.getFirst()).contains("it was not run again");
        assertThat(results.getLast()).startsWith("ran-second");
        assertThat(fx.types(session).getLast()).isEqualTo("session.status_idle");
        assertThat(restarted.sessions().get(fx.caller, session).toWire()).containsEntry("status", "idle");
    }
}
