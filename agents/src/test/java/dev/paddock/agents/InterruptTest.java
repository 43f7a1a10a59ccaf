package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.access.Principal;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code user.interrupt} stops the turn at once (supervised lane, real subprocess sandbox, a scripted Messages API in
 * place of the vendor's): the running tool's processes are killed and an answer the model has not given yet is
 * never waited for.
 */
class InterruptTest {
    ScriptedModel model;
    AgentsFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) fx.close();
        if (model != null) model.close();
    }

    @Test
    void anInterruptKillsTheRunningToolsProcessGroupAndTheSessionGoesIdle() throws Exception {
        model = new ScriptedModel((results, call) -> results == 0
                ? Reply.message(List.of(toolUse("toolu_1", "bash", Map.of("command", "sleep 600 & echo $! > pid; wait"))))
                : Reply.message(List.of(text("should not be asked"))));
        fx = new AgentsFixture(model);
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "run something long");
        long sleeper = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> pid(session), p -> p > 0);
        assertThat(ProcessHandle.of(sleeper)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

        interrupt(session);
        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        // the shell's background child went with it: the whole process group was killed
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(sleeper).map(p -> !p.isAlive()).orElse(true));
        SessionEvent result = fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_TOOL_RESULT)).findFirst().orElseThrow();
        assertThat(result.body()).containsEntry("is_error", true);
        assertThat(result.body().toString()).contains("interrupted");
        assertThat(fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_TOOL_RESULT))).hasSize(1);
        assertThat(model.requests).hasSize(1);
    }

    @Test
    void anInterruptCancelsTheModelRequestUnderWayAndItsAnswerIsNeverRecorded() throws Exception {
        model = new ScriptedModel((results, call) -> call == 1
                ? Reply.message(List.of(text("too late"))).after(Duration.ofMinutes(10))
                : Reply.message(List.of(text("next"))));
        fx = new AgentsFixture(model);
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "think hard");
        fx.awaitEvent(session, SessionEventType.SPAN_MODEL_REQUEST_START);

        interrupt(session);
        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        assertThat(fx.types(session)).doesNotContain("agent.message", "session.error");
        SessionEvent end = fx.events(session).stream().filter(e -> e.is(SessionEventType.SPAN_MODEL_REQUEST_END)).findFirst().orElseThrow();
        assertThat(end.body()).containsEntry("is_error", true);

        // the session takes new input as usual
        fx.say(session, "again");
        fx.awaitIdle(session, 2);
        assertThat(fx.types(session)).contains("agent.message");
    }

    private void interrupt(String session) {
        fx.agents.intake().send(fx.caller, session, Map.of("events", List.of(Map.of("type", "user.interrupt"))));
    }

    /** The pid the tool wrote into the session's workspace; 0 until it has. */
    private long pid(String session) {
        String sandbox = fx.agents.sessions().get(fx.caller, session).sandboxId();
        if (sandbox == null) return 0;
        try (InputStream in = fx.host.workspace(new Principal("default", "agents", false), sandbox).read("/workspace/pid")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? 0 : Long.parseLong(text);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
