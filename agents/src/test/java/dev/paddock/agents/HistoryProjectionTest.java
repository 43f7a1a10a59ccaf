package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.loop.History;
import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventStore;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.agents.ToolResultEvent;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.store.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A session's history projection on real SQLite: advanced event by event it always equals the history rebuilt
 * from the whole log, a fresh projection (a restarted server) reads the log once, and after that each read fetches
 * only what was appended since.
 */
class HistoryProjectionTest {
    static final String SESSION = "sesn_a";
    static final String OTHER = "sesn_b";

    /** The store, counting the events its reads hand out. */
    static final class CountingEvents implements SessionEventStore {
        final SessionEventStore store;
        final AtomicInteger read = new AtomicInteger();

        CountingEvents(SessionEventStore store) {
            this.store = store;
        }

        @Override public SessionEvent append(String s, String t, String type, Map<String, Object> body) { return store.append(s, t, type, body); }
        @Override public SessionEvent append(String id, String s, String t, String type, Map<String, Object> body) { return store.append(id, s, t, type, body); }
        @Override public SessionEvent appendAsOwner(String o, String id, String s, String t, String type, Map<String, Object> body) {
            return store.appendAsOwner(o, id, s, t, type, body);
        }
        @Override public String newId() { return store.newId(); }
        @Override public Page<SessionEvent> list(String s, PageRequest page, boolean newestFirst) { return store.list(s, page, newestFirst); }
        @Override public Optional<SessionEvent> find(String s, String id) { return store.find(s, id); }

        @Override
        public List<SessionEvent> after(String s, long seq, int limit) {
            List<SessionEvent> out = store.after(s, seq, limit);
            read.addAndGet(out.size());
            return out;
        }
    }

    /** What the loop and the intake ask of a history. */
    record View(List<ModelGateway.Message> messages, List<History.PendingUse> pending, boolean modelToMove, boolean idle,
                History.Confirmation confirmation, boolean knowsFirstUse) {
        static View of(History h, String useId) {
            return new View(h.messages(), h.pending(), h.modelToMove(), h.endsWith(SessionEventType.SESSION_STATUS_IDLE),
                    useId == null ? null : h.confirmation(useId), useId != null && h.knowsUse(useId));
        }
    }

    Path dir;
    JdbcStore store;
    CountingEvents counting;
    EventLog events;

    @BeforeEach
    void open() throws Exception {
        dir = Files.createTempDirectory("paddock-history-test");
        store = JdbcStore.openSqlite(dir.resolve("p.db"));
        counting = new CountingEvents(store.agents().events());
        events = new EventLog(counting);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void advancedEventByEventItEqualsTheHistoryRebuiltFromTheWholeLog() {
        HistoryProjection projection = new HistoryProjection(events, SESSION);
        String[] firstUse = new String[1];
        for (Step step : conversation()) {
            SessionEvent e = step.append(this, firstUse[0]);
            if (firstUse[0] == null && e.is(SessionEventType.AGENT_TOOL_USE)) firstUse[0] = e.id();
            events.append(OTHER, "t", SessionEventType.USER_MESSAGE, Map.of("content", "noise"));
            View rebuilt = View.of(History.of(all(SESSION)), firstUse[0]);
            View projected = projection.read(h -> View.of(h, firstUse[0]));
            assertThat(projected).as("after %s", e.type()).isEqualTo(rebuilt);
        }
        View end = projection.read(h -> View.of(h, firstUse[0]));
        assertThat(end.pending()).isEmpty();
        assertThat(end.modelToMove()).as("the user spoke last").isTrue();
        assertThat(end.confirmation().result()).isEqualTo("allow");
        View restarted = new HistoryProjection(events, SESSION).read(h -> View.of(h, firstUse[0]));
        assertThat(restarted).as("a restarted server reads the same").isEqualTo(end);
    }

    @Test
    void afterTheFirstReadEachReadFetchesOnlyTheNewEvents() {
        for (int i = 0; i < 510; i++) events.append(SESSION, "t", SessionEventType.USER_MESSAGE, Map.of("content", "m" + i));
        HistoryProjection projection = new HistoryProjection(events, SESSION);
        projection.read(History::messages);
        assertThat(counting.read.getAndSet(0)).as("a fresh projection reads the log once").isEqualTo(510);
        for (int turn = 0; turn < 5; turn++) {
            events.append(SESSION, "t", SessionEventType.AGENT_MESSAGE, Map.of("content", "a" + turn));
            events.append(SESSION, "t", SessionEventType.USER_MESSAGE, Map.of("content", "u" + turn));
            assertThat(projection.read(History::modelToMove)).isTrue();
            assertThat(projection.read(History::modelToMove)).isTrue();
            assertThat(counting.read.getAndSet(0)).as("turn %d reads its two new events only", turn).isEqualTo(2);
        }
    }

    @Test
    void anEventTheHistoryHoldsAlreadyIsSkipped() {
        events.append(SESSION, "t", SessionEventType.USER_MESSAGE, Map.of("content", "hi"));
        List<SessionEvent> log = all(SESSION);
        History h = History.of(log);
        log.forEach(h::add);
        assertThat(h.messages()).hasSize(1);
        assertThat(h.messages().getFirst().blocks()).hasSize(1);
        assertThat(h.seq()).isEqualTo(log.getLast().seq());
    }

    /** One event of the scripted conversation; {@code firstUse} is the id of its first tool call once made. */
    interface Step {
        SessionEvent append(HistoryProjectionTest t, String firstUse);
    }

    private static List<Step> conversation() {
        List<Step> steps = new ArrayList<>();
        String[] custom = new String[1];
        steps.add((t, u) -> t.append(SessionEventType.USER_MESSAGE, Map.of("content", List.of(Map.of("type", "text", "text", "list files")))));
        steps.add((t, u) -> t.append(SessionEventType.SESSION_STATUS_RUNNING, Map.of()));
        steps.add((t, u) -> t.append(SessionEventType.AGENT_MESSAGE, AgentEvents.message("looking")));
        steps.add((t, u) -> t.append(SessionEventType.AGENT_TOOL_USE, AgentEvents.toolUse("bash", Map.of("command", "ls"), "ask")));
        steps.add((t, u) -> {
            SessionEvent e = t.append(SessionEventType.AGENT_CUSTOM_TOOL_USE, AgentEvents.toolUse("lookup", Map.of("q", "x"), null));
            custom[0] = e.id();
            return e;
        });
        steps.add((t, u) -> t.append(SessionEventType.SESSION_STATUS_IDLE, AgentEvents.idle(AgentEvents.StopReason.requiresAction(List.of(u)))));
        steps.add((t, u) -> t.append(SessionEventType.USER_TOOL_CONFIRMATION, Map.of("tool_use_id", u, "result", "allow")));
        steps.add((t, u) -> t.append(SessionEventType.AGENT_TOOL_RESULT, new ToolResultEvent(SessionEventType.AGENT_TOOL_RESULT, u, "", false).body()));
        steps.add((t, u) -> t.append(SessionEventType.AGENT_TOOL_RESULT, new ToolResultEvent(SessionEventType.AGENT_TOOL_RESULT, u, "again", false).body()));
        steps.add((t, u) -> t.append(SessionEventType.USER_CUSTOM_TOOL_RESULT, Map.of("custom_tool_use_id", custom[0],
                "content", List.of(Map.of("type", "text", "text", "42")), "is_error", false)));
        steps.add((t, u) -> t.append(SessionEventType.AGENT_MESSAGE, AgentEvents.message("done")));
        steps.add((t, u) -> t.append(SessionEventType.SESSION_STATUS_IDLE, AgentEvents.idle(AgentEvents.StopReason.END_TURN)));
        steps.add((t, u) -> t.append(SessionEventType.USER_MESSAGE, Map.of("content", List.of(Map.of("type", "text", "text", "thanks")))));
        return steps;
    }

    private SessionEvent append(SessionEventType type, Map<String, Object> body) {
        return events.append(SESSION, "t", type, body);
    }

    private List<SessionEvent> all(String session) {
        return store.agents().events().after(session, 0, 10_000);
    }
}
