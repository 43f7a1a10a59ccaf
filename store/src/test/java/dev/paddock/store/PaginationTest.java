package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
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
class PaginationTest {
    @Parameter StoreBackend backend;
    static final Instant BASE = Instant.parse("2030-01-01T00:00:00Z");

    @TempDir Path dir;
    JdbcStore store;

    @BeforeEach
    void open() {
        // A fixed clock puts every event in the same millisecond: their order must still be the append order.
        store = backend.open(dir.resolve("paddock.db"), Clock.fixed(BASE, ZoneOffset.UTC));
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** Five sandboxes of tenant-1 created 1 ms apart, with tenant-2's interleaved; returned oldest first. */
    private List<String> fiveSandboxes() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String id = Ids.newId("sbx", BASE.plusMillis(2L * i));
            store.sandboxes().insert(TestData.sandbox(id, "tenant-1", SandboxState.CREATING));
            store.sandboxes().insert(TestData.sandbox(Ids.newId("sbx", BASE.plusMillis(2L * i + 1)), "tenant-2", SandboxState.CREATING));
            ids.add(id);
        }
        return ids;
    }

    private Page<SandboxRecord> sandboxes(int limit, String after, String before) {
        return store.sandboxes().list("tenant-1", new PageRequest(limit, after, before), true);
    }

    @Test
    void sandboxesPageNewestFirstInBothDirections() {
        List<String> s = fiveSandboxes();

        assertPage(sandboxes(2, null, null), List.of(s.get(4), s.get(3)), true);
        assertPage(sandboxes(2, s.get(3), null), List.of(s.get(2), s.get(1)), true);
        assertPage(sandboxes(2, s.get(1), null), List.of(s.get(0)), false);
        assertPage(sandboxes(2, s.get(0), null), List.of(), false);
        assertPage(sandboxes(2, null, s.get(0)), List.of(s.get(2), s.get(1)), true);
        assertPage(sandboxes(2, null, s.get(2)), List.of(s.get(4), s.get(3)), false);
        assertPage(sandboxes(2, null, s.get(4)), List.of(), false);
        assertPage(sandboxes(5, null, null), List.of(s.get(4), s.get(3), s.get(2), s.get(1), s.get(0)), false);
    }

    @Test
    void aTenantSeesOnlyItsOwnSandboxes() {
        fiveSandboxes();

        Page<SandboxRecord> one = store.sandboxes().list("tenant-1", PageRequest.first(100), true);
        Page<SandboxRecord> two = store.sandboxes().list("tenant-2", PageRequest.first(100), true);

        assertThat(one.data()).hasSize(5).allSatisfy(r -> assertThat(r.tenantId()).isEqualTo("tenant-1"));
        assertThat(two.data()).hasSize(5).allSatisfy(r -> assertThat(r.tenantId()).isEqualTo("tenant-2"));
        assertThat(store.sandboxes().list("tenant-3", PageRequest.first(100), true).data()).isEmpty();
    }

    @Test
    void endedSandboxesOnlyWhenAskedAndNeverInListActive() {
        List<String> s = fiveSandboxes();
        store.sandboxes().transition(s.get(2), TestData.FENCE, SandboxState.FAILED, "create_failed");

        assertThat(store.sandboxes().list("tenant-1", PageRequest.first(100), false).data())
                .extracting(SandboxRecord::id).containsExactly(s.get(4), s.get(3), s.get(1), s.get(0));
        assertThat(store.sandboxes().list("tenant-1", PageRequest.first(100), true).data()).hasSize(5);
        List<SandboxRecord> active = store.sandboxes().listActive();
        assertThat(active).hasSize(9).noneMatch(r -> r.id().equals(s.get(2)));
        assertThat(active).extracting(SandboxRecord::tenantId).contains("tenant-1", "tenant-2");
    }

    @Test
    void eventsPageOldestFirstInBothDirections() {
        SandboxRecord sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);
        List<String> e = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            e.add(store.events().append(sandbox.id(), TestData.FENCE, "step", Map.of("n", i)).id());
        }

        Page<SandboxEvent> all = store.events().list(sandbox.id(), PageRequest.first(10));
        assertThat(all.data()).extracting(ev -> ev.data().get("n")).containsExactly(0, 1, 2, 3, 4);
        assertPage(events(sandbox, 2, null, null), List.of(e.get(0), e.get(1)), true);
        assertPage(events(sandbox, 2, e.get(1), null), List.of(e.get(2), e.get(3)), true);
        assertPage(events(sandbox, 2, e.get(3), null), List.of(e.get(4)), false);
        assertPage(events(sandbox, 2, null, e.get(4)), List.of(e.get(2), e.get(3)), true);
        assertPage(events(sandbox, 5, null, e.get(2)), List.of(e.get(0), e.get(1)), false);
        assertPage(events(sandbox, 2, null, e.get(0)), List.of(), false);
    }

    @Test
    void eventCursorFromElsewhereIsRefused() {
        SandboxRecord a = TestData.sandbox("tenant-1");
        SandboxRecord b = TestData.sandbox("tenant-1");
        store.sandboxes().insert(a);
        store.sandboxes().insert(b);
        String ofB = store.events().append(b.id(), TestData.FENCE, "x", Map.of()).id();

        assertThatThrownBy(() -> events(a, 2, ofB, null))
                .isInstanceOfSatisfying(PaddockException.class, ex -> assertThat(ex.code()).isEqualTo("invalid_cursor"));
        assertThatThrownBy(() -> events(a, 2, null, Ids.newId("evt")))
                .isInstanceOfSatisfying(PaddockException.class, ex -> assertThat(ex.code()).isEqualTo("invalid_cursor"));
        assertThatThrownBy(() -> store.events().list(Ids.newId("sbx"), PageRequest.first(1)))
                .isInstanceOfSatisfying(PaddockException.class, ex -> assertThat(ex.code()).isEqualTo("not_found"));
    }

    @Test
    void checkpointsPageNewestFirst() {
        SandboxRecord sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);
        List<String> c = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = Ids.newId("cp", BASE.plusMillis(i));
            store.checkpoints().insert(new CheckpointRecord(id, sandbox.id(), "tenant-1", "workspace_tar", i, "f".repeat(64), BASE));
            c.add(id);
        }

        assertPage(store.checkpoints().list(sandbox.id(), PageRequest.first(2)), List.of(c.get(2), c.get(1)), true);
        assertPage(store.checkpoints().list(sandbox.id(), new PageRequest(2, c.get(1), null)), List.of(c.get(0)), false);
        assertPage(store.checkpoints().list(sandbox.id(), new PageRequest(1, null, c.get(0))), List.of(c.get(1)), true);
    }

    private Page<SandboxEvent> events(SandboxRecord sandbox, int limit, String after, String before) {
        return store.events().list(sandbox.id(), new PageRequest(limit, after, before));
    }

    private static void assertPage(Page<?> page, List<String> ids, boolean hasMore) {
        List<String> actual = page.data().stream().map(PaginationTest::idOf).toList();
        assertThat(actual).containsExactlyElementsOf(ids);
        assertThat(page.hasMore()).as("has_more").isEqualTo(hasMore);
        assertThat(page.firstId()).as("first_id").isEqualTo(ids.isEmpty() ? null : ids.getFirst());
        assertThat(page.lastId()).as("last_id").isEqualTo(ids.isEmpty() ? null : ids.getLast());
    }

    private static String idOf(Object o) {
        return switch (o) {
            case SandboxRecord r -> r.id();
            case SandboxEvent e -> e.id();
            case CheckpointRecord c -> c.id();
            default -> throw new IllegalArgumentException(o.toString());
        };
    }
}
