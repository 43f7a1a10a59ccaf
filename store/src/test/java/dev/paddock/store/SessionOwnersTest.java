package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionMovedException;
import dev.paddock.core.agents.SessionOwners;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which node runs a session's loop, on both databases: of several claims at once exactly one wins, the owner is
 * changed only by a compare-and-set on the owner, a wake asked of the owner is taken once, and an owner's append is
 * refused once another owns the session (nothing is written).
 */
@ParameterizedClass
@EnumSource(StoreBackend.class)
class SessionOwnersTest {
    @Parameter StoreBackend backend;
    @TempDir Path dir;
    JdbcStore store;
    SessionOwners owners;
    final String session = "sesn_owned";

    @BeforeEach
    void open() {
        store = backend.open(dir.resolve("paddock.db"));
        owners = store.agents().owners();
        store.agents().resources().insert(Session.create(session, "tenant-1", "env_1", "agent_1", TestData.now(), Map.of()).row());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void ofSeveralClaimsAtOnceExactlyOneWins() throws Exception {
        assertThat(owners.find(session).orElseThrow().ownerId()).isNull();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Boolean>> claims = new ArrayList<>();
        for (String node : List.of("node_a@1", "node_b@1", "node_c@1", "node_d@1")) {
            claims.add(pool.submit((Callable<Boolean>) () -> owners.claim(session, null, node, false)));
        }
        int won = 0;
        for (Future<Boolean> f : claims) won += f.get() ? 1 : 0;
        pool.shutdown();
        assertThat(won).isEqualTo(1);
        String owner = owners.find(session).orElseThrow().ownerId();
        assertThat(owners.ownedOnNode(owner.substring(0, owner.indexOf('@')))).extracting(SessionOwners.Owned::sessionId).containsExactly(session);

        assertThat(owners.claim(session, "node_x@1", "node_y@1", false)).as("a stale expectation").isFalse();
        assertThat(owners.claim(session, owner, "node_e@2", true)).isTrue();
        SessionOwners.Owned moved = owners.find(session).orElseThrow();
        assertThat(moved.ownerId()).isEqualTo("node_e@2");
        assertThat(moved.wakeRequested()).isTrue();
        assertThat(owners.ownedOnNode("node_e")).hasSize(1);
        assertThat(owners.claim(session, "node_e@2", null, false)).isTrue();
        assertThat(owners.ownedOnNode("node_e")).isEmpty();
        assertThat(owners.claim("sesn_missing", null, "node_a@1", false)).isFalse();
    }

    @Test
    void aWakeAskedOfTheOwnerIsTakenOnceAndOnlyByIt() {
        owners.claim(session, null, "node_a@1", false);
        assertThat(owners.requestWake(session, "node_b@1")).as("not the owner").isFalse();
        assertThat(owners.wakesFor("node_a@1")).isEmpty();
        assertThat(owners.requestWake(session, "node_a@1")).isTrue();
        assertThat(owners.wakesFor("node_a@1")).extracting(SessionOwners.Owned::sessionId).containsExactly(session);
        assertThat(owners.wakesFor("node_a@2")).isEmpty();
        assertThat(owners.takeWake(session, "node_b@1")).isFalse();
        assertThat(owners.takeWake(session, "node_a@1")).isTrue();
        assertThat(owners.takeWake(session, "node_a@1")).isFalse();
        assertThat(owners.wakesFor("node_a@1")).isEmpty();
    }

    @Test
    void anOwnersAppendIsRefusedOnceAnotherOwnsTheSession() {
        owners.claim(session, null, "node_a@1", false);
        store.agents().events().appendAsOwner("node_a@1", null, session, "tenant-1", "agent.message", Map.of("n", 1));
        owners.claim(session, "node_a@1", "node_b@1", false);
        assertThatThrownBy(() -> store.agents().events().appendAsOwner("node_a@1", null, session, "tenant-1", "agent.message", Map.of("n", 2)))
                .isInstanceOf(SessionMovedException.class);
        store.agents().events().appendAsOwner("node_b@1", null, session, "tenant-1", "agent.message", Map.of("n", 3));
        assertThat(store.agents().events().after(session, 0, 10)).extracting(e -> e.body().get("n")).containsExactly(1, 3);
    }

    @Test
    void anInterruptAskedOfTheOwnerIsKeptUntilTakenAndAPlainWakeDoesNotLowerIt() {
        owners.claim(session, null, "node_a@1", false);
        assertThat(owners.requestWake(session, "node_a@1", false)).isTrue();
        SessionOwners.Owned seen = owners.wakesFor("node_a@1").getFirst();
        assertThat(seen.interruptRequested()).isFalse();
        // an interrupt arrives between the owner's look and its take: the take of the plain wake fails, the next look sees it
        assertThat(owners.requestWake(session, "node_a@1", true)).isTrue();
        assertThat(owners.requestWake(session, "node_a@1", false)).isTrue();
        assertThat(owners.takeWake(session, "node_a@1", seen.interruptRequested())).isFalse();
        assertThat(owners.wakesFor("node_a@1")).singleElement().satisfies(o -> assertThat(o.interruptRequested()).isTrue());
        assertThat(owners.takeWake(session, "node_a@1", true)).isTrue();
        assertThat(owners.wakesFor("node_a@1")).isEmpty();
    }

    @Test
    void anOwnersUpdateOfTheSessionRowIsRefusedOnceAnotherOwnsIt() {
        owners.claim(session, null, "node_a@1", false);
        Session before = new Session(store.agents().resources().find("session", "tenant-1", session).orElseThrow());
        Session running = new Session(store.agents().resources().updateAsOwner("node_a@1",
                before.withStatus(Session.RUNNING, TestData.now()).row()));
        owners.claim(session, "node_a@1", "node_b@1", false);
        assertThatThrownBy(() -> store.agents().resources().updateAsOwner("node_a@1", running.withStatus(Session.IDLE, TestData.now()).row()))
                .isInstanceOf(SessionMovedException.class);
        assertThat(store.agents().resources().find("session", "tenant-1", session).orElseThrow().state()).isEqualTo(Session.RUNNING);
        store.agents().resources().updateAsOwner("node_b@1", running.withStatus(Session.RESCHEDULING, TestData.now()).row());
        assertThat(store.agents().resources().find("session", "tenant-1", session).orElseThrow().state()).isEqualTo(Session.RESCHEDULING);
    }
}
