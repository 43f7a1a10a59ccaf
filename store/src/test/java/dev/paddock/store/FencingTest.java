package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.FenceLostException;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

@ParameterizedClass
@EnumSource(StoreBackend.class)
class FencingTest {
    @Parameter StoreBackend backend;
    @TempDir Path dir;
    JdbcStore store;
    SandboxRecord sandbox;

    @BeforeEach
    void open() {
        store = backend.open(dir.resolve("paddock.db"));
        sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void staleGenerationCannotTransitionTouchSetHandleOrAppend() {
        String id = sandbox.id();
        // the same owner re-acquires (e.g. after a restart): its previous generation is now stale
        Fence current = store.sandboxes().takeOver(id, TestData.FENCE, "host-a");
        Fence stale = TestData.FENCE;
        assertThat(current).isEqualTo(new Fence("host-a", 2));
        SandboxRecord before = store.sandboxes().find(id).orElseThrow();

        assertThatThrownBy(() -> store.sandboxes().transition(id, stale, SandboxState.RUNNING, "x")).isInstanceOf(FenceLostException.class);
        assertThatThrownBy(() -> store.sandboxes().touch(id, stale, TestData.now())).isInstanceOf(FenceLostException.class);
        assertThatThrownBy(() -> store.sandboxes().setHandle(id, stale, "h")).isInstanceOf(FenceLostException.class);
        assertThatThrownBy(() -> store.events().append(id, stale, "exec", Map.of())).isInstanceOf(FenceLostException.class);

        assertThat(store.sandboxes().find(id)).contains(before);
        assertThat(store.events().list(id, PageRequest.first(10)).data()).isEmpty();
    }

    @Test
    void theNodeLabelsACreateAskedForAreKeptWithTheSandboxAndOnlyItsHolderSetsThem() {
        assertThat(store.sandboxes().nodeLabels(sandbox.id())).isEmpty();
        store.sandboxes().setNodeLabels(sandbox.id(), TestData.FENCE, Map.of("zone", "b", "gpu", "yes"));
        assertThat(store.sandboxes().nodeLabels(sandbox.id())).containsExactlyInAnyOrderEntriesOf(Map.of("zone", "b", "gpu", "yes"));
        assertThat(store.sandboxes().find(sandbox.id()).orElseThrow()).isEqualTo(sandbox); // the record itself is unchanged
        assertThatThrownBy(() -> store.sandboxes().setNodeLabels(sandbox.id(), new Fence("host-b", 1), Map.of("zone", "c")))
                .isInstanceOf(FenceLostException.class);
        assertThat(store.sandboxes().nodeLabels(sandbox.id())).containsEntry("zone", "b");
        assertThat(store.sandboxes().nodeLabels("sbx_missing")).isEmpty();
    }

    @Test
    void aGenerationNewerThanStoredIsRefusedToo() {
        Fence forged = new Fence("host-a", 99);

        assertThatThrownBy(() -> store.sandboxes().touch(sandbox.id(), forged, TestData.now())).isInstanceOf(FenceLostException.class);
    }

    @Test
    void otherOwnerWithTheSameGenerationIsRefused() {
        Fence impostor = new Fence("host-b", TestData.FENCE.generation());

        assertThatThrownBy(() -> store.sandboxes().transition(sandbox.id(), impostor, SandboxState.RUNNING, null))
                .isInstanceOfSatisfying(FenceLostException.class, e -> assertThat(e.code()).isEqualTo("fence_lost"));
    }

    @Test
    void takeOverBumpsTheGenerationAndLocksOutTheOldOwner() {
        Fence taken = store.sandboxes().takeOver(sandbox.id(), TestData.FENCE, "host-b");

        assertThat(taken).isEqualTo(new Fence("host-b", 2));
        assertThat(store.sandboxes().find(sandbox.id()).orElseThrow().fence()).isEqualTo(taken);
        assertThatThrownBy(() -> store.sandboxes().transition(sandbox.id(), TestData.FENCE, SandboxState.RUNNING, null))
                .isInstanceOf(FenceLostException.class);
        assertThatThrownBy(() -> store.sandboxes().touch(sandbox.id(), TestData.FENCE, TestData.now()))
                .isInstanceOf(FenceLostException.class);
        assertThatThrownBy(() -> store.events().append(sandbox.id(), TestData.FENCE, "late", Map.of()))
                .isInstanceOf(FenceLostException.class);

        // the new owner works
        store.sandboxes().transition(sandbox.id(), taken, SandboxState.RUNNING, "adopted");
        store.events().append(sandbox.id(), taken, "adopted", Map.of());
        assertThat(store.sandboxes().find(sandbox.id()).orElseThrow().state()).isEqualTo(SandboxState.RUNNING);
        assertThat(store.events().list(sandbox.id(), PageRequest.first(10)).data()).hasSize(1);
    }

    @Test
    void takeOverWithAWrongExpectedFenceIsRefusedAndChangesNothing() {
        store.sandboxes().takeOver(sandbox.id(), TestData.FENCE, "host-b");

        // host-c read the old fence and races host-b: it must lose
        assertThatThrownBy(() -> store.sandboxes().takeOver(sandbox.id(), TestData.FENCE, "host-c"))
                .isInstanceOf(FenceLostException.class);
        assertThat(store.sandboxes().find(sandbox.id()).orElseThrow().fence()).isEqualTo(new Fence("host-b", 2));
    }

    @Test
    void fencedCallsOnAMissingSandboxAreNotFound() {
        String missing = Ids.newId("sbx");

        assertThatThrownBy(() -> store.sandboxes().transition(missing, TestData.FENCE, SandboxState.RUNNING, null)).satisfies(FencingTest::notFound);
        assertThatThrownBy(() -> store.sandboxes().touch(missing, TestData.FENCE, TestData.now())).satisfies(FencingTest::notFound);
        assertThatThrownBy(() -> store.sandboxes().setHandle(missing, TestData.FENCE, "h")).satisfies(FencingTest::notFound);
        assertThatThrownBy(() -> store.sandboxes().takeOver(missing, TestData.FENCE, "host-b")).satisfies(FencingTest::notFound);
        assertThatThrownBy(() -> store.events().append(missing, TestData.FENCE, "x", Map.of())).satisfies(FencingTest::notFound);
    }

    private static void notFound(Throwable t) {
        assertThat(t).isExactlyInstanceOf(PaddockException.class);
        assertThat(((PaddockException) t).code()).isEqualTo("not_found");
    }
}
