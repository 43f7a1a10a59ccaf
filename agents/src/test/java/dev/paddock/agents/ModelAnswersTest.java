package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the loop takes the model's unusual answers (a scripted Messages API stands in for the vendor's): refusals and
 * empty answers end the turn, failures that may pass are retried and reported as they happen, others end the session.
 */
class ModelAnswersTest {
    ScriptedModel model;
    AgentsFixture fx;

    void start(ScriptedModel.Script script, UnaryOperator<AgentsConfig> tune) throws Exception {
        model = new ScriptedModel(script);
        fx = new AgentsFixture(model, tune);
    }

    @AfterEach
    void stop() {
        if (fx != null) fx.close();
        if (model != null) model.close();
    }

    @Test
    void aRefusalEndsTheTurnWithTheRefusalStopReasonAndItsDetails() throws Exception {
        start((results, call) -> call == 1 ? Reply.refusal("cyber", "the request could enable harm") : Reply.message(List.of(text("fine"))),
                UnaryOperator.identity());
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "write malware");
        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "refusal"));
        assertThat(idle.body().get("stop_details")).isEqualTo(Map.of("type", "refusal", "category", "cyber",
                "explanation", "the request could enable harm"));
        assertThat(model.requests).hasSize(1);
        assertThat(fx.types(session)).doesNotContain("session.error");

        // the session takes the next message as usual
        fx.say(session, "then say hello");
        SessionEvent next = fx.awaitIdle(session, 2);
        assertThat(next.body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        assertThat(next.body().get("stop_details")).isNull();
    }

    @Test
    void aRefusalWithoutACategoryHasNullDetailFields() throws Exception {
        start((results, call) -> Reply.refusal(null, null), UnaryOperator.identity());
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "hi");
        SessionEvent idle = fx.awaitIdle(session, 1);
        Map<String, Object> details = new HashMap<>();
        details.put("type", "refusal");
        details.put("category", null);
        details.put("explanation", null);
        assertThat(idle.body().get("stop_details")).isEqualTo(details);
    }

    @Test
    void anEmptyAnswerEndsTheTurnOnceInsteadOfAskingAgain() throws Exception {
        start((results, call) -> Reply.empty("end_turn"), UnaryOperator.identity());
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "anything?");
        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        assertThat(model.requests).hasSize(1);
        assertThat(fx.types(session)).containsExactly("user.message", "session.status_running", "span.model_request_start",
                "span.model_request_end", "session.status_idle");
    }

    @Test
    void rateLimitsAndOverloadsAreRetriedAfterTheRetryAfterTheyAskForAndEachRetryIsAnEvent() throws Exception {
        start((results, call) -> switch (call) {
            case 1 -> Reply.error(429, "rate_limit_error", "0");
            case 2 -> Reply.error(529, "overloaded_error", "0");
            default -> Reply.message(List.of(text("made it")));
        }, c -> c.withModelRetry(Duration.ofHours(2), Duration.ofHours(1)));
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "hi");
        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        // with an hour's backoff, only honouring retry-after: 0 lets the turn end within the wait above
        List<Map<String, Object>> errors = errors(session);
        assertThat(errors).extracting(e -> e.get("type")).containsExactly("model_rate_limited_error", "model_overloaded_error");
        assertThat(errors).extracting(e -> e.get("retry_status")).containsOnly(Map.of("type", "retrying"));
        assertThat(model.requests).hasSize(3);
        assertThat(fx.types(session)).endsWith("agent.message", "session.status_idle");
    }

    @Test
    void failuresThatOutlastTheRetryBudgetEndTheTurnAsExhausted() throws Exception {
        start((results, call) -> Reply.error(529, "overloaded_error", null), c -> c.withModelRetry(Duration.ofMillis(300), Duration.ofMillis(10)));
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "hi");
        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "retries_exhausted"));
        List<Map<String, Object>> errors = errors(session);
        assertThat(errors).hasSizeGreaterThanOrEqualTo(2).extracting(e -> e.get("type")).containsOnly("model_overloaded_error");
        assertThat(errors.subList(0, errors.size() - 1)).extracting(e -> e.get("retry_status")).containsOnly(Map.of("type", "retrying"));
        assertThat(errors.getLast().get("retry_status")).isEqualTo(Map.of("type", "exhausted"));
        assertThat(model.requests).hasSize(errors.size());
        assertThat(fx.agents.sessions().get(fx.caller, session).toWire()).containsEntry("status", "idle");
    }

    @Test
    void aRetryAfterLongerThanTheBudgetIsNotWaitedFor() throws Exception {
        start((results, call) -> Reply.error(429, "rate_limit_error", "3600"), c -> c.withModelRetry(Duration.ofSeconds(30), Duration.ofMillis(10)));
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "hi");
        fx.awaitIdle(session, 1);
        assertThat(errors(session)).singleElement().satisfies(e -> {
            assertThat(e.get("type")).isEqualTo("model_rate_limited_error");
            assertThat(e.get("retry_status")).isEqualTo(Map.of("type", "exhausted"));
        });
        assertThat(model.requests).hasSize(1);
    }

    @Test
    void aRequestTheModelRefusesOutrightIsTerminalAndTheSessionEnds() throws Exception {
        start((results, call) -> Reply.error(400, "invalid_request_error", null), UnaryOperator.identity());
        String session = fx.session("cloud", List.of(), List.of());
        fx.say(session, "hi");
        fx.awaitEvent(session, SessionEventType.SESSION_STATUS_TERMINATED);
        assertThat(errors(session)).singleElement().satisfies(e -> {
            assertThat(e.get("type")).isEqualTo("model_request_failed_error");
            assertThat(e.get("retry_status")).isEqualTo(Map.of("type", "terminal"));
        });
        assertThat(model.requests).hasSize(1);
        assertThat(fx.agents.sessions().get(fx.caller, session).toWire()).containsEntry("status", "terminated");
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> errors(String session) {
        return fx.events(session).stream().filter(e -> e.is(SessionEventType.SESSION_ERROR))
                .map(e -> (Map<String, Object>) e.body().get("error")).toList();
    }
}
