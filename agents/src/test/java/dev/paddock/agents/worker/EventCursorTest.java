package dev.paddock.agents.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.agents.Cursors;
import dev.paddock.agents.EventLog;
import dev.paddock.agents.ListResult;
import dev.paddock.core.agents.SessionEvent;
import dev.paddock.core.agents.SessionEventType;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.store.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A worker's cursor over a session's event list, served as the events route serves it (real SQLite, the API's
 * page cursors and wire shape): every event is handed out once, in order, and a read costs what is new plus at
 * most one page.
 */
class EventCursorTest {
    static final String SESSION = "sesn_w";
    static final int LIMIT = 10;

    Path dir;
    JdbcStore store;
    EventLog events;
    final List<Integer> pageSizes = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        dir = Files.createTempDirectory("paddock-cursor-test");
        store = JdbcStore.openSqlite(dir.resolve("p.db"));
        events = new EventLog(store.agents().events());
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** {@code GET /v1/sessions/{id}/events?limit=10&page=…} as JSON. */
    JsonNode page(String cursor) {
        PageRequest request = Cursors.request(cursor, LIMIT, 20);
        Page<Map<String, Object>> page = events.list(SESSION, request, false).map(EventLog::wire);
        pageSizes.add(page.data().size());
        ListResult result = new ListResult(page.data(), Cursors.next(page, request), Cursors.prev(page, request), page.hasMore(),
                page.firstId(), page.lastId());
        return QueueClient.JSON.valueToTree(result.toWire());
    }

    @Test
    void everyEventIsHandedOutOnceInOrderAsTheLogGrows() {
        EventCursor cursor = new EventCursor(this::page);
        assertThat(cursor.next()).as("an empty session").isEmpty();
        List<String> appended = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (int round : List.of(3, 7, 1, 10, 0, 25, 2)) {
            IntStream.range(0, round).forEach(i -> appended.add(append(i).id()));
            cursor.next().forEach(e -> seen.add(e.get("id").asString()));
            assertThat(seen).as("after appending %d", round).isEqualTo(appended);
        }
    }

    @Test
    void aReadAfterTheFirstCostsTheNewEventsPlusAtMostOnePage() {
        IntStream.range(0, 95).forEach(this::append);
        EventCursor cursor = new EventCursor(this::page);
        assertThat(cursor.next()).hasSize(95);
        pageSizes.clear();
        for (int round = 0; round < 5; round++) {
            append(round);
            List<JsonNode> fresh = cursor.next();
            assertThat(fresh).hasSize(1);
            assertThat(fresh.getFirst().get("type").asString()).isEqualTo("agent.tool_use");
            assertThat(pageSizes.stream().mapToInt(Integer::intValue).sum()).as("events read in round %d", round).isLessThanOrEqualTo(2 * LIMIT);
            pageSizes.clear();
        }
    }

    private SessionEvent append(int i) {
        return events.append(SESSION, "t", SessionEventType.AGENT_TOOL_USE, Map.of("name", "bash", "input", Map.of("command", "echo " + i)));
    }
}
