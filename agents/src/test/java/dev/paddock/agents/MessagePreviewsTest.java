package dev.paddock.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The loop streams the model's answer (a scripted Messages API in place of the vendor's, speaking its event stream):
 * subscribers that asked for {@code agent.message} previews get its text as it comes, under the id of the buffered
 * event that follows; others, and the log, get only the buffered events.
 */
class MessagePreviewsTest {
    ScriptedModel model;
    AgentsFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) fx.close();
        if (model != null) model.close();
    }

    /** Everything a subscription got until the session went idle {@code times} times. */
    private static List<EventLog.Item> collect(EventLog.Subscription sub, int times) throws InterruptedException {
        List<EventLog.Item> out = new ArrayList<>();
        int idles = 0;
        while (idles < times) {
            EventLog.Item item = sub.queue().poll(60, TimeUnit.SECONDS);
            assertThat(item).as("the session went idle in time").isNotNull();
            out.add(item);
            if (item instanceof EventLog.Logged(SessionEvent e) && e.is(SessionEventType.SESSION_STATUS_IDLE)) idles++;
        }
        return out;
    }

    @Test
    void previewsOfTheTextComeInOrderBeforeTheBufferedMessageWithItsIdAndOnlyToThoseWhoAsked() throws Exception {
        model = new ScriptedModel(n -> List.of(text("one two three four five"), text("second block")));
        fx = new AgentsFixture(model);
        String session = fx.session("cloud", List.of(), List.of());
        try (EventLog.Subscription previewing = fx.agents.events().subscribe(session, Set.of("agent.message"));
             EventLog.Subscription plain = fx.agents.events().subscribe(session)) {
            fx.say(session, "speak");
            List<EventLog.Item> seen = collect(previewing, 1);
            List<EventLog.Item> plainSeen = collect(plain, 1);

            List<SessionEvent> messages = fx.events(session).stream().filter(e -> e.is(SessionEventType.AGENT_MESSAGE)).toList();
            assertThat(messages).hasSize(2);
            for (SessionEvent message : messages) {
                String text = (String) ((Map<?, ?>) ((List<?>) message.body().get("content")).getFirst()).get("text");
                int start = indexOf(seen, i -> i instanceof EventLog.Preview p && p.type().equals("event_start")
                        && p.wire().get("event").equals(Map.of("type", "agent.message", "id", message.id())));
                int buffered = indexOf(seen, i -> i instanceof EventLog.Logged(SessionEvent e) && e.id().equals(message.id()));
                assertThat(start).isNotNegative().isLessThan(buffered);
                StringBuilder streamed = new StringBuilder();
                for (EventLog.Item i : seen.subList(start, buffered)) {
                    if (i instanceof EventLog.Preview p && p.type().equals("event_delta") && message.id().equals(p.wire().get("event_id"))) {
                        Map<?, ?> delta = (Map<?, ?>) p.wire().get("delta");
                        assertThat(delta.get("type")).isEqualTo("content_delta");
                        assertThat(delta.get("index")).isEqualTo(0);
                        streamed.append(((Map<?, ?>) delta.get("content")).get("text"));
                    }
                }
                assertThat(streamed.toString()).isEqualTo(text);
            }
            // the first block's text came in more than one fragment
            assertThat(seen.stream().filter(i -> i instanceof EventLog.Preview p && p.type().equals("event_delta")
                    && messages.getFirst().id().equals(p.wire().get("event_id")))).hasSizeGreaterThan(1);
            assertThat(plainSeen).allMatch(i -> i instanceof EventLog.Logged);
            assertThat(fx.types(session)).doesNotContain("event_start", "event_delta");
        }
    }

    @Test
    void anOverloadedErrorInsideTheStreamIsRetriedAndItsPreviewIsClosedByItsRequestEnd() throws Exception {
        model = new ScriptedModel((results, call) -> call == 1
                ? Reply.errorInStream(List.of(text("half an answer")), "overloaded_error")
                : Reply.message(List.of(text("whole answer"))));
        fx = new AgentsFixture(model, c -> c.withModelRetry(Duration.ofSeconds(30), Duration.ofMillis(10)));
        String session = fx.session("cloud", List.of(), List.of());
        try (EventLog.Subscription previewing = fx.agents.events().subscribe(session, Set.of("agent.message"))) {
            fx.say(session, "speak");
            List<EventLog.Item> seen = collect(previewing, 1);

            assertThat(model.requests).hasSize(2);
            assertThat(fx.awaitIdle(session, 1).body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
            SessionEvent retry = fx.events(session).stream().filter(e -> e.is(SessionEventType.SESSION_ERROR)).findFirst().orElseThrow();
            Map<?, ?> error = (Map<?, ?>) retry.body().get("error");
            assertThat(error.get("type")).isEqualTo("model_overloaded_error");
            assertThat(error.get("retry_status")).isEqualTo(Map.of("type", "retrying"));
            // the broken answer's preview opened, then its request ended in error; its id never became an event
            int start = indexOf(seen, i -> i instanceof EventLog.Preview p && p.type().equals("event_start"));
            String brokenId = (String) ((Map<?, ?>) ((EventLog.Preview) seen.get(start)).wire().get("event")).get("id");
            int end = indexOf(seen, i -> i instanceof EventLog.Logged(SessionEvent e) && e.is(SessionEventType.SPAN_MODEL_REQUEST_END));
            assertThat(end).isGreaterThan(start);
            assertThat(((EventLog.Logged) seen.get(end)).event().body()).containsEntry("is_error", true);
            assertThat(fx.events(session)).noneMatch(e -> e.id().equals(brokenId));
            assertThat(fx.types(session).stream().filter("agent.message"::equals)).hasSize(1);
        }
    }

    @Test
    void anInterruptCancelsAStreamingRequestAtOnce() throws Exception {
        model = new ScriptedModel((results, call) -> call == 1
                ? Reply.message(List.of(text("a very long answer that never ends"))).pausingInStream(Duration.ofMinutes(10))
                : Reply.message(List.of(text("next"))));
        fx = new AgentsFixture(model);
        String session = fx.session("cloud", List.of(), List.of());
        try (EventLog.Subscription previewing = fx.agents.events().subscribe(session, Set.of("agent.message"))) {
            fx.say(session, "speak");
            // the first fragment has arrived: the request is streaming
            EventLog.Item item;
            do {
                item = previewing.queue().poll(60, TimeUnit.SECONDS);
                assertThat(item).isNotNull();
            } while (!(item instanceof EventLog.Preview p && p.type().equals("event_delta")));

            fx.agents.intake().send(fx.caller, session, Map.of("events", List.of(Map.of("type", "user.interrupt"))));
            assertThat(fx.awaitIdle(session, 1).body().get("stop_reason")).isEqualTo(Map.of("type", "end_turn"));
            assertThat(fx.types(session)).doesNotContain("agent.message", "session.error");
            assertThat(model.requests).hasSize(1);

            fx.say(session, "again");
            fx.awaitIdle(session, 2);
            assertThat(fx.types(session)).contains("agent.message");
        }
    }

    private static int indexOf(List<EventLog.Item> items, Predicate<EventLog.Item> test) {
        for (int i = 0; i < items.size(); i++) if (test.test(items.get(i))) return i;
        return -1;
    }
}
