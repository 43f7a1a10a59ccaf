package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.SessionEventType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Client events are checked against the session's history before any is written. */
class EventIntakeTest {
    static ScriptedModel model;
    static AgentsFixture fx;

    @BeforeAll
    static void start() throws Exception {
        model = new ScriptedModel(results -> List.of(toolUse("toolu_1", "bash", Map.of("command", "true")),
                toolUse("toolu_2", "lookup", Map.of())));
        fx = new AgentsFixture(model);
    }

    @AfterAll
    static void stop() {
        fx.close();
        model.close();
    }

    @Test
    void anUnknownTypeIsRefusedNamingTheTypesClientsMaySend() {
        String session = fx.session("cloud", List.of(), List.of());
        assertThatThrownBy(() -> send(session, Map.of("type", "agent.message", "content", "x")))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("unknown_event_type"))
                .hasMessageContaining("[user.custom_tool_result, user.interrupt, user.message, user.tool_confirmation, user.tool_result]");
        assertThat(fx.events(session)).isEmpty();
    }

    @Test
    void toolResultsMustAnswerAPendingCallOfTheRightKindAndNothingIsWrittenOtherwise() {
        String session = fx.session("cloud", List.of(Map.of("name", "bash", "permission_policy", Map.of("type", "always_ask"))),
                List.of(Map.of("type", "custom", "name", "lookup", "description", "d", "input_schema", Map.of("type", "object"))));
        fx.say(session, "go");
        fx.awaitIdle(session, 1);
        String builtIn = idOf(session, SessionEventType.AGENT_TOOL_USE);
        String custom = idOf(session, SessionEventType.AGENT_CUSTOM_TOOL_USE);
        int before = fx.events(session).size();

        assertThat(codeOf(() -> send(session, result("user.custom_tool_result", "custom_tool_use_id", "sevt_nope")))).isEqualTo("unknown_tool_use_id");
        assertThat(codeOf(() -> send(session, result("user.tool_result", "tool_use_id", custom)))).isEqualTo("wrong_result_type");
        assertThat(codeOf(() -> send(session, result("user.tool_result", "tool_use_id", builtIn)))).as("the sandbox runs built-in tools")
                .isEqualTo("tool_runs_in_paddock");
        assertThat(codeOf(() -> send(session, result("user.custom_tool_result", "custom_tool_use_id", custom),
                result("user.custom_tool_result", "custom_tool_use_id", custom)))).isEqualTo("tool_result_already_sent");
        assertThat(fx.events(session)).hasSize(before);

        send(session, result("user.custom_tool_result", "custom_tool_use_id", custom));
        assertThat(codeOf(() -> send(session, result("user.custom_tool_result", "custom_tool_use_id", custom))))
                .as("the projection has taken the answer in").isEqualTo("tool_result_already_sent");
    }

    /** A create refused for its initial events stores nothing, and leaves no loop state behind either. */
    @Test
    void aSessionRefusedForItsInitialEventsLeavesNothingBehind() {
        String session = fx.session("cloud", List.of(), List.of());
        String agent = fx.agents.sessions().get(fx.caller, session).agent().id();
        String env = fx.agents.sessions().get(fx.caller, session).environmentId();
        int runs = fx.agents.engine().runs();
        for (int i = 0; i < 5; i++) {
            assertThat(codeOf(() -> fx.agents.sessions().create(fx.caller, Map.of("agent", agent, "environment_id", env, "initial_events",
                    List.of(Map.of("type", "user.tool_confirmation", "tool_use_id", "sevt_nope", "result", "allow"))))))
                    .isEqualTo("unknown_tool_use_id");
        }
        assertThat(fx.agents.engine().runs()).as("no loop state for sessions that were never stored").isEqualTo(runs);
    }

    private static String idOf(String session, SessionEventType type) {
        return fx.events(session).stream().filter(e -> e.is(type)).findFirst().orElseThrow().id();
    }

    private static Map<String, Object> result(String type, String idField, String useId) {
        return Map.of("type", type, idField, useId, "content", List.of(Map.of("type", "text", "text", "r")));
    }

    @SafeVarargs
    private static void send(String session, Map<String, Object>... events) {
        fx.agents.intake().send(fx.caller, session, Map.of("events", List.of(events)));
    }

    private static String codeOf(Runnable call) {
        try {
            call.run();
        } catch (PaddockException e) {
            return e.code();
        }
        throw new AssertionError("the call was not refused");
    }
}
