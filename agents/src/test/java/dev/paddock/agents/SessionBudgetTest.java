package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.toolset.AgentToolset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session's budget and {@code paddock_limits} stop its loop before a model request they do not allow (supervised
 * lane, real subprocess sandbox, a scripted Messages API in place of the vendor's, priced by the operator setting).
 */
class SessionBudgetTest {
    /** Each request costs one dollar: a million input tokens at $1 per million. */
    private static final Map<String, Object> DOLLAR = Map.of("input_tokens", 1_000_000, "output_tokens", 0);

    ScriptedModel model;
    AgentsFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) fx.close();
        if (model != null) model.close();
    }

    /** A model that runs a command on its first two requests and then ends its turn; every request costs $1. */
    private void start() throws Exception {
        model = new ScriptedModel((results, call) -> (call <= 2
                ? Reply.message(List.of(toolUse("toolu_" + call, "bash", Map.of("command", "true"))))
                : Reply.message(List.of(text("done")))).withUsage(DOLLAR));
        fx = new AgentsFixture(model, c -> c.withModelPrices(ModelPrices.parse("claude-test=1/5")));
    }

    private String session(Map<String, Object> extra) {
        Agent agent = fx.agents.agents().create(fx.caller, Map.of("name", "a", "model", "claude-test",
                "tools", List.of(Map.of("type", AgentToolset.TYPE, "configs", List.of()))));
        Environment env = fx.agents.environments().create(fx.caller, Map.of("name", "e-" + System.nanoTime(), "config", Map.of("type", "cloud")));
        Map<String, Object> body = new LinkedHashMap<>(Map.of("agent", agent.id(), "environment_id", env.id()));
        body.putAll(extra);
        return fx.agents.sessions().create(fx.caller, body).id();
    }

    private static Map<String, Object> budget(String cents) {
        return Map.of("type", "limit", "max_list_cost", Map.of("amount", cents, "currency", "USD"));
    }

    @Test
    void aReachedBudgetStopsTheLoopBeforeItsNextRequestAndARaiseLetsTheNextMessageContinue() throws Exception {
        start();
        String session = session(Map.of("budget", budget("150")));
        fx.say(session, "go");

        SessionEvent idle = fx.awaitIdle(session, 1);
        assertThat(idle.body().get("stop_reason")).isEqualTo(Map.of("type", "budget_reached"));
        // $1 after the first request is under $1.50, so a second was sent; $2 after it is not
        assertThat(model.requests).hasSize(2);
        Map<String, Object> wire = fx.agents.sessions().get(fx.caller, session).toWire();
        assertThat(((Map<?, ?>) wire.get("usage")).get("list_cost")).isEqualTo(Map.of("amount", "200", "currency", "USD"));
        assertThat(wire.get("budget")).isEqualTo(budget("150"));

        // another message alone does not move it: the budget is still reached, and no request is sent
        fx.say(session, "go on");
        assertThat(fx.awaitIdle(session, 2).body().get("stop_reason")).isEqualTo(Map.of("type", "budget_reached"));
        assertThat(model.requests).hasSize(2);

        assertThatThrownBy(() -> fx.agents.sessions().update(fx.caller, session, Map.of("budget", budget("200"))))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("budget_not_raised"));
        fx.agents.sessions().update(fx.caller, session, Map.of("budget", budget("450")));
        SessionEvent updated = fx.events(session).stream().filter(e -> e.is(SessionEventType.SESSION_UPDATED)).reduce((a, b) -> b).orElseThrow();
        assertThat(updated.body().get("budget")).isEqualTo(budget("450"));

        fx.say(session, "now finish");
        assertThat(fx.awaitIdle(session, 3).body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
        assertThat(model.requests).hasSize(3);
        assertThat(((Map<?, ?>) fx.agents.sessions().get(fx.caller, session).toWire().get("usage")).get("list_cost"))
                .isEqualTo(Map.of("amount", "300", "currency", "USD"));
        // each request left a session.usage snapshot with the budget of its time
        List<SessionEvent> snapshots = fx.events(session).stream().filter(e -> e.is(SessionEventType.SESSION_USAGE)).toList();
        assertThat(snapshots).hasSize(3);
        assertThat(((Map<?, ?>) snapshots.getFirst().body().get("usage")).get("list_cost")).isEqualTo(Map.of("amount", "100", "currency", "USD"));
        assertThat(snapshots.getFirst().body().get("budget")).isEqualTo(budget("150"));
        assertThat(snapshots.getLast().body().get("budget")).isEqualTo(budget("450"));
    }

    @Test
    void aRemovedBudgetIsNotAddedAgainAndASessionWithoutOneCannotGetOne() throws Exception {
        start();
        String capped = session(Map.of("budget", budget("1000")));
        fx.agents.sessions().update(fx.caller, capped, Map.of("budget", budget("2000")));
        Map<String, Object> removal = new LinkedHashMap<>();
        removal.put("budget", null);
        assertThat(fx.agents.sessions().update(fx.caller, capped, removal).toWire().get("budget")).isNull();
        assertThatThrownBy(() -> fx.agents.sessions().update(fx.caller, capped, Map.of("budget", budget("3000"))))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("budget_create_only"));

        String uncapped = session(Map.of());
        assertThatThrownBy(() -> fx.agents.sessions().update(fx.caller, uncapped, Map.of("budget", budget("3000"))))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("budget_create_only"));
    }

    @Test
    void paddockLimitsStopTheLoopLikeABudget() throws Exception {
        start();
        String session = session(Map.of("paddock_limits", Map.of("max_model_requests", 1)));
        fx.say(session, "go");
        assertThat(fx.awaitIdle(session, 1).body().get("stop_reason")).isEqualTo(Map.of("type", "budget_reached"));
        assertThat(model.requests).hasSize(1);
        assertThat(fx.types(session)).contains("agent.tool_result");

        // a raised limit lets the next message continue, until the token limit stops it: 2,000,000 tokens after the
        // second request reach 1,500,000
        fx.agents.sessions().update(fx.caller, session, Map.of("paddock_limits", Map.of("max_model_requests", 10, "max_tokens", 1_500_000)));
        fx.say(session, "go on");
        assertThat(fx.awaitIdle(session, 2).body().get("stop_reason")).isEqualTo(Map.of("type", "budget_reached"));
        assertThat(model.requests).hasSize(2);
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("max_model_requests", 10L);
        limits.put("max_tokens", 1_500_000L);
        limits.put("max_active_seconds", null);
        assertThat(fx.agents.sessions().get(fx.caller, session).toWire().get("paddock_limits")).isEqualTo(limits);
    }
}
