package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.SandboxRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

@ParameterizedClass
@EnumSource(StoreBackend.class)
class StateMachineTest {
    @Parameter StoreBackend backend;
    static final Instant NOW = Instant.parse("2030-01-02T03:04:05.123456Z");

    @TempDir Path dir;
    JdbcStore store;
    SandboxRecord sandbox;

    @BeforeEach
    void open() {
        store = backend.open(dir.resolve("paddock.db"), Clock.fixed(NOW, ZoneOffset.UTC));
        sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void legalLifecycleIsStoredWithReasonAndTime() {
        String id = sandbox.id();
        var f = TestData.FENCE;

        SandboxRecord running = store.sandboxes().transition(id, f, SandboxState.RUNNING, "started");
        store.sandboxes().transition(id, f, SandboxState.SUSPENDED, "idle");
        store.sandboxes().transition(id, f, SandboxState.RUNNING, "resumed");
        store.sandboxes().transition(id, f, SandboxState.TERMINATING, "user_request");
        SandboxRecord ended = store.sandboxes().transition(id, f, SandboxState.TERMINATED, "user_request");

        assertThat(running.state()).isEqualTo(SandboxState.RUNNING);
        assertThat(running.updatedAt()).isEqualTo(NOW);
        assertThat(store.sandboxes().find(id)).contains(ended);
        assertThat(ended.stateReason()).isEqualTo("user_request");
        assertThat(ended.updatedAt()).isEqualTo(NOW);
    }

    @Test
    void illegalMoveIsAConflictThatNamesBothStates() {
        store.sandboxes().transition(sandbox.id(), TestData.FENCE, SandboxState.RUNNING, null);

        assertThatThrownBy(() -> store.sandboxes().transition(sandbox.id(), TestData.FENCE, SandboxState.CREATING, null))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.type()).isEqualTo(ErrorType.CONFLICT);
                    assertThat(e.code()).isEqualTo("invalid_transition");
                    assertThat(e.getMessage()).isEqualTo("cannot move sandbox " + sandbox.id() + " from running to creating");
                });
        assertThat(store.sandboxes().find(sandbox.id()).orElseThrow().state()).isEqualTo(SandboxState.RUNNING);
    }

    @Test
    void terminalStatesAreFinal() {
        store.sandboxes().transition(sandbox.id(), TestData.FENCE, SandboxState.FAILED, "create_failed");

        for (SandboxState to : SandboxState.values()) {
            assertThatThrownBy(() -> store.sandboxes().transition(sandbox.id(), TestData.FENCE, to, null))
                    .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("invalid_transition"));
        }
        assertThat(store.sandboxes().find(sandbox.id()).orElseThrow().stateReason()).isEqualTo("create_failed");
    }

    @Test
    void aReasonIsReplacedOnlyInTheSameStateFromTheExpectedReasonUnderTheFence() {
        String id = sandbox.id();
        store.sandboxes().transition(id, TestData.FENCE, SandboxState.RUNNING, null);

        SandboxRecord lost = store.sandboxes().replaceReason(id, TestData.FENCE, SandboxState.RUNNING, null, "runtime_disconnected").orElseThrow();
        assertThat(lost.state()).isEqualTo(SandboxState.RUNNING);
        assertThat(store.sandboxes().find(id).orElseThrow().stateReason()).isEqualTo("runtime_disconnected");
        assertThat(store.sandboxes().replaceReason(id, TestData.FENCE, SandboxState.RUNNING, null, "again"))
                .as("the reason moved on: nothing changes").isEmpty();
        assertThat(store.sandboxes().replaceReason(id, TestData.FENCE, SandboxState.SUSPENDED, "runtime_disconnected", null))
                .as("another state: nothing changes").isEmpty();
        assertThatThrownBy(() -> store.sandboxes().replaceReason(id, new dev.paddock.core.spi.Fence("host-b", 2), SandboxState.RUNNING, "runtime_disconnected", null))
                .isInstanceOf(dev.paddock.core.FenceLostException.class);

        assertThat(store.sandboxes().replaceReason(id, TestData.FENCE, SandboxState.RUNNING, "runtime_disconnected", null)).isPresent();
        SandboxRecord back = store.sandboxes().find(id).orElseThrow();
        assertThat(back.state()).isEqualTo(SandboxState.RUNNING);
        assertThat(back.stateReason()).isNull();
    }
}
