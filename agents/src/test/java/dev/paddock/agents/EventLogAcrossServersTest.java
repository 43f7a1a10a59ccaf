package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.agents.SessionEventType;
import dev.paddock.store.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two servers' event logs on one store (as two nodes of a cluster are): a client following a session on one server
 * gets the events the other server appends, in the order of the store, together with its own server's appends and
 * without repeats; events from before it subscribed are not replayed. Real SQLite.
 */
class EventLogAcrossServersTest {
    static final String SESSION = "sesn_nodes";
    Path dir;
    JdbcStore store;
    EventLog serverA;
    EventLog serverB;

    @BeforeEach
    void open() throws Exception {
        dir = Files.createTempDirectory("paddock-eventlog-nodes");
        store = JdbcStore.openSqlite(dir.resolve("p.db"));
        serverA = new EventLog(store.agents().events());
        serverB = new EventLog(store.agents().events());
        serverA.followStore(Duration.ofMillis(50));
        serverB.followStore(Duration.ofMillis(50));
    }

    @AfterEach
    void close() {
        serverA.close();
        serverB.close();
        store.close();
    }

    @Test
    void aFollowerOnOneServerSeesWhatTheOtherAppendsInStoreOrder() throws Exception {
        serverA.append(SESSION, "t1", SessionEventType.USER_MESSAGE, Map.of("n", "before"));
        try (EventLog.Subscription onB = serverB.subscribe(SESSION)) {
            serverA.append(SESSION, "t1", SessionEventType.USER_MESSAGE, Map.of("n", "a1"));
            serverB.append(SESSION, "t1", SessionEventType.USER_MESSAGE, Map.of("n", "b1"));
            serverA.append(SESSION, "t1", SessionEventType.USER_MESSAGE, Map.of("n", "a2"));
            List<String> got = new ArrayList<>();
            List<Long> seqs = new ArrayList<>();
            while (got.size() < 3) {
                EventLog.Item item = onB.queue().poll(10, TimeUnit.SECONDS);
                assertThat(item).as("event %d reached the follower on server B", got.size() + 1).isNotNull();
                EventLog.Logged logged = (EventLog.Logged) item;
                got.add(String.valueOf(logged.event().body().get("n")));
                seqs.add(logged.event().seq());
            }
            assertThat(got).containsExactly("a1", "b1", "a2");
            assertThat(seqs).isSorted();
            assertThat(onB.queue().poll(300, TimeUnit.MILLISECONDS)).as("no repeats").isNull();
        }
    }
}
