package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.worker.PaddockWorker;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A model that never stops calling tools is stopped at the turn limit, and the session stays stopped — also when
 * the worker's last tool result woke the session while it was hitting the limit.
 */
class TurnLimitTest extends ScriptedStackTest {
    private static final int MAX_TURNS = 3;


    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(results -> List.of(toolUse("toolu_" + results, "bash", Map.of("command", "true"))));
        startStack(new AgentsConfig(model.baseUrl(), "k", false, null, MAX_TURNS, 0, null, null, null, null));
    }

    @Test
    void theTurnLimitEndsTheTurnForGood() throws Exception {
        SelfHostedSession sh = SelfHostedSession.open(api);
        String env = sh.env(), key = sh.key(), session = sh.session();
        PaddockWorker worker = new PaddockWorker(new PaddockWorker.Settings(stack.baseUrl, env, key, "turn-limit", Duration.ofSeconds(30),
                Duration.ofSeconds(2), null), stack.host);
        Thread t = Thread.ofVirtual().start(worker::run);
        try {
            api.say(session, "loop");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(SelfHostedWorkerTest.typesOf(api, session)).contains("session.error").endsWith("session.status_idle"));
            int calls = model.requests.size();
            Thread.sleep(2000); // a stale wake-up must not start the model again
            assertThat(model.requests).as("model requests after the turn limit").hasSize(calls);
            assertThat(calls).as("one model request per turn").isEqualTo(MAX_TURNS);
            assertThat(SelfHostedWorkerTest.typesOf(api, session)).endsWith("session.status_idle");
        } finally {
            worker.close();
            t.join(Duration.ofSeconds(40));
        }
    }
}
