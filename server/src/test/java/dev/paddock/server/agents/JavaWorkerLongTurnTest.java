package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.worker.PaddockWorker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A long turn served by the Java worker: every one of many tool calls in a single turn is answered, and a client
 * following the session's event stream sees every event the session stored, in order (the stream is what workers
 * and clients follow, so an event missing from it looks like a stalled session).
 */
class JavaWorkerLongTurnTest extends ScriptedStackTest {
    private static final int CALLS = 60;


    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(results -> results < CALLS
                ? List.of(toolUse("toolu_" + results, "bash", Map.of("command", "true")))
                : List.of(text("Done.")));
        // room for every call in one turn: the default turn limit is below CALLS
        AgentsConfig config = new AgentsConfig(model.baseUrl(), "k", false, null, CALLS + 10, 0, null, null, null, null);
        startStack(config);
    }

    @Test
    void everyToolCallOfALongTurnIsAnsweredAndStreamedInOrder() throws Exception {
        SelfHostedSession sh = SelfHostedSession.open(api);
        String env = sh.env(), key = sh.key(), session = sh.session();

        List<String> streamed = new CopyOnWriteArrayList<>();
        CountDownLatch connected = new CountDownLatch(1);
        Thread follower = Thread.ofVirtual().start(() -> follow(session, connected, streamed));
        assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();

        PaddockWorker worker = new PaddockWorker(new PaddockWorker.Settings(stack.baseUrl, env, key, "java-long", Duration.ofSeconds(30),
                Duration.ofSeconds(2), null), stack.host);
        Thread t = Thread.ofVirtual().start(worker::run);
        try {
            api.say(session, "go");
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                    .untilAsserted(() -> assertThat(SelfHostedWorkerTest.typesOf(api, session)).endsWith("agent.message", "session.status_idle"));
            List<String> types = SelfHostedWorkerTest.typesOf(api, session);
            assertThat(types).doesNotContain("session.error");
            assertThat(types.stream().filter("user.tool_result"::equals).count()).isEqualTo(CALLS);
            assertThat(model.lastToolResults()).hasSize(CALLS);

            List<String> stored = new ArrayList<>();
            for (JsonNode e : api.get("/v1/sessions/" + session + "/events?limit=1000", Map.of()).body().get("data")) stored.add(e.get("id").asString());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(streamed).hasSameSizeAs(stored));
            assertThat(streamed).containsExactlyElementsOf(stored);
        } finally {
            follower.interrupt();
            worker.close();
            t.join(Duration.ofSeconds(40));
        }
    }

    /** Follows the session's SSE stream from its start, collecting each event id in the order it arrives. */
    private static void follow(String session, CountDownLatch connected, List<String> ids) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(stack.baseUrl + "/v1/sessions/" + session + "/events/stream"))
                .header("x-api-key", stack.apiKey).header("Accept", "text/event-stream").GET().build();
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<Stream<String>> res = http.send(req, HttpResponse.BodyHandlers.ofLines());
            connected.countDown();
            try (Stream<String> lines = res.body()) {
                Iterator<String> it = lines.iterator();
                while (!Thread.currentThread().isInterrupted() && it.hasNext()) {
                    String line = it.next();
                    if (line.startsWith("id: ")) ids.add(line.substring(4).strip());
                }
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // interrupted at the end of the test
        }
    }
}
