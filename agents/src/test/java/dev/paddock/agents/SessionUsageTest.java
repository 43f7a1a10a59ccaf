package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A session's usage and stats add up its model requests' tokens and its running time, as the SDK types name them. */
class SessionUsageTest {
    private static final Map<String, Object> TOKENS = Map.of("input_tokens", 100, "output_tokens", 20, "cache_read_input_tokens", 30,
            "cache_creation_input_tokens", 7, "cache_creation", Map.of("ephemeral_5m_input_tokens", 4, "ephemeral_1h_input_tokens", 3));

    @Test
    void usageSumsEveryModelRequestAndStatsCountRunningAndElapsedTime() throws Exception {
        try (ScriptedModel model = new ScriptedModel((results, call) -> (results == 0
                ? Reply.message(List.of(toolUse("toolu_1", "bash", Map.of("command", "echo hi"))))
                : Reply.message(List.of(text("done")))).withUsage(TOKENS));
             AgentsFixture fx = new AgentsFixture(model)) {
            String session = fx.session("cloud", List.of(), List.of());
            fx.say(session, "go");
            fx.awaitIdle(session, 1);

            Map<String, Object> wire = fx.agents.sessions().get(fx.caller, session).toWire();
            Map<?, ?> usage = (Map<?, ?>) wire.get("usage");
            assertThat(usage.get("input_tokens")).isEqualTo(200L);
            assertThat(usage.get("output_tokens")).isEqualTo(40L);
            assertThat(usage.get("cache_read_input_tokens")).isEqualTo(60L);
            assertThat(usage.get("cache_creation")).isEqualTo(Map.of("ephemeral_5m_input_tokens", 8L, "ephemeral_1h_input_tokens", 6L));
            Map<?, ?> stats = (Map<?, ?>) wire.get("stats");
            double active = ((Number) stats.get("active_seconds")).doubleValue();
            double duration = ((Number) stats.get("duration_seconds")).doubleValue();
            assertThat(active).isPositive().isLessThanOrEqualTo(duration);
            assertThat(usage.get("active_seconds")).isEqualTo(stats.get("active_seconds"));

            // a title change keeps what the loop counted
            fx.agents.sessions().update(fx.caller, session, Map.of("title", "renamed"));
            assertThat(fx.agents.sessions().get(fx.caller, session).toWire().get("usage")).isEqualTo(usage);

            // a terminated session's duration stops at its end
            fx.agents.sessions().archive(fx.caller, session);
            Object frozen = ((Map<?, ?>) fx.agents.sessions().get(fx.caller, session).toWire().get("stats")).get("duration_seconds");
            Thread.sleep(20);
            assertThat(((Map<?, ?>) fx.agents.sessions().get(fx.caller, session).toWire().get("stats")).get("duration_seconds")).isEqualTo(frozen);
        }
    }

    @Test
    void aNewSessionHasZeroUsage() throws Exception {
        try (ScriptedModel model = new ScriptedModel(n -> List.of(text("ok")));
             AgentsFixture fx = new AgentsFixture(model)) {
            Map<String, Object> wire = fx.agents.sessions().get(fx.caller, fx.session("cloud", List.of(), List.of())).toWire();
            Map<?, ?> usage = (Map<?, ?>) wire.get("usage");
            assertThat(usage.get("input_tokens")).isEqualTo(0L);
            assertThat(usage.get("output_tokens")).isEqualTo(0L);
            Map<?, ?> stats = (Map<?, ?>) wire.get("stats");
            assertThat(stats.get("active_seconds")).isEqualTo(0.0);
            assertThat(stats.get("duration_seconds")).isNotNull();
        }
    }
}
