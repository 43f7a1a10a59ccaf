package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The agent loop on real parts (SQLite, the subprocess driver, the official client against a scripted model). */
class SessionEngineTest {
    ScriptedModel model;
    AgentsFixture fx;

    void start(ScriptedModel scripted) throws Exception {
        model = scripted;
        fx = new AgentsFixture(model);
    }

    @AfterEach
    void stop() {
        if (fx != null) fx.close();
        if (model != null) model.close();
    }

    @Test
    void aToolCallRunsInTheSessionsSandboxAndTheModelReadsItsOutput() throws Exception {
        start(new ScriptedModel(results -> results == 0
                ? List.of(text("looking"), toolUse("toolu_1", "bash", Map.of("command", "echo hi")))
                : List.of(text("done"))));
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "say hi");
        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        assertThat(fx.types(session)).containsExactly("user.message", "session.status_running",
                "span.model_request_start", "span.model_request_end", "agent.message", "agent.tool_use", "agent.tool_result",
                "span.model_request_start", "span.model_request_end", "agent.message", "session.status_idle");
        assertThat(model.lastToolResults()).containsExactly("hi");
        SessionEvent use = fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_TOOL_USE)).findFirst().orElseThrow();
        assertThat(use.body()).containsEntry("evaluated_permission", "allow");
        assertThat(fx.agents.sessions().get(fx.caller, session).toWire()).containsEntry("status", "idle").extractingByKey("paddock_sandbox_id").isNotNull();
    }

    @Test
    void aToolThatAsksFirstWaitsForTheUserAndADenialIsTheToolsResult() throws Exception {
        start(new ScriptedModel(results -> results == 0 ? List.of(toolUse("toolu_1", "bash", Map.of("command", "rm -rf /workspace")))
                : List.of(text("ok, I will not"))));
        String session = fx.session("cloud", List.of(Map.of("name", "bash", "permission_policy", Map.of("type", "always_ask"))), List.of());
        fx.say(session, "clean up");
        SessionEvent waiting = fx.awaitIdle(session, 1);
        String useId = fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_TOOL_USE)).findFirst().orElseThrow().id();
        assertThat(waiting.body().get("stop_reason")).isEqualTo(Map.of("type", "requires_action", "event_ids", List.of(useId)));

        fx.agents.intake().send(fx.caller, session, Map.of("events", List.of(
                Map.of("type", "user.tool_confirmation", "tool_use_id", useId, "result", "deny", "deny_message", "not today"))));
        fx.awaitIdle(session, 2);
        SessionEvent result = fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_TOOL_RESULT)).findFirst().orElseThrow();
        assertThat(result.body()).containsEntry("tool_use_id", useId).containsEntry("is_error", true);
        assertThat(model.lastToolResults()).containsExactly("the user denied this tool call: not today");
    }

    @Test
    void aCustomToolCallIsTheUsersToAnswer() throws Exception {
        start(new ScriptedModel(results -> results == 0 ? List.of(toolUse("toolu_1", "lookup", Map.of("q", "x"))) : List.of(text("thanks"))));
        String session = fx.session("cloud", List.of(), List.of(Map.of("type", "custom", "name", "lookup", "description", "looks up",
                "input_schema", Map.of("type", "object"))));
        fx.say(session, "look it up");
        fx.awaitIdle(session, 1);
        SessionEvent use = fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_CUSTOM_TOOL_USE)).findFirst().orElseThrow();
        assertThat(use.body()).doesNotContainKey("evaluated_permission");

        fx.agents.intake().send(fx.caller, session, Map.of("events", List.of(Map.of("type", "user.custom_tool_result",
                "custom_tool_use_id", use.id(), "content", List.of(Map.of("type", "text", "text", "42"))))));
        SessionEvent done = fx.awaitIdle(session, 2);
        assertThat(done.body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        assertThat(model.lastToolResults()).containsExactly("42");
    }
}
