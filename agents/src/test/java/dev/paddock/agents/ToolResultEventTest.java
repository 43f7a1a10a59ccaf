package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.agents.ToolResultEvent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one builder of tool-result events, for the loop's agent.tool_result and a worker's user.tool_result. */
class ToolResultEventTest {
    @Test
    void theBodyHoldsTheCallIdOneTextBlockAndTheErrorFlag() {
        Map<String, Object> body = new ToolResultEvent(SessionEventType.AGENT_TOOL_RESULT, "sevt_1", "hi\n", false).body();
        assertThat(body).containsExactly(
                Map.entry("tool_use_id", "sevt_1"),
                Map.entry("content", List.of(Map.of("type", "text", "text", "hi\n"))),
                Map.entry("is_error", false));
    }

    @Test
    void anEmptyOutputIsSentAsNoOutput() {
        assertThat(new ToolResultEvent(SessionEventType.USER_TOOL_RESULT, "sevt_1", "", true).body().get("content"))
                .isEqualTo(List.of(Map.of("type", "text", "text", "(no output)")));
        assertThat(new ToolResultEvent(SessionEventType.USER_TOOL_RESULT, "sevt_1", null, true).text()).isEqualTo(ToolResultEvent.NO_OUTPUT);
    }

    @Test
    void whatAWorkerSendsNamesItsTypeFirst() {
        Map<String, Object> sent = new ToolResultEvent(SessionEventType.USER_TOOL_RESULT, "sevt_2", "out", true).toSend();
        assertThat(sent.keySet()).containsExactly("type", "tool_use_id", "content", "is_error");
        assertThat(sent.get("type")).isEqualTo("user.tool_result");
        assertThat(sent.get("is_error")).isEqualTo(true);
    }

    @Test
    void onlyToolResultTypesAreTaken() {
        assertThatThrownBy(() -> new ToolResultEvent(SessionEventType.USER_MESSAGE, "sevt_1", "x", false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("user.message");
    }
}
