package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static dev.paddock.host.HostFixture.BOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host's lifecycle, tenancy, policy and checkpoint logic over the test-only subprocess driver and real SQLite. */
class RuntimeHostTest {
    @TempDir Path dataDir;
    Store store;
    RuntimeHost host;

    @BeforeEach
    void start() {
        store = HostFixture.store(dataDir);
        host = HostFixture.host(dataDir, store, "subprocess", List.of(HostFixture.subprocess(dataDir)));
    }

    @AfterEach
    void stop() {
        host.close();
        store.close();
    }

    @Test
    void createRunDeleteRecordsEveryLifecycleEvent() {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        assertThat(sbx.state()).isEqualTo(SandboxState.RUNNING);
        assertThat(sbx.fence().ownerId()).isEqualTo(host.ownerId());

        ExecResult r = host.run(ALICE, sbx.id(), ExecRequest.shell("echo hi > out.txt; exit 3"), ExecOutput.DISCARD);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(read(host.workspace(ALICE, sbx.id()), "out.txt")).isEqualTo("hi\n");

        SandboxRecord gone = host.delete(ALICE, sbx.id());
        assertThat(gone.state()).isEqualTo(SandboxState.TERMINATED);
        assertThat(host.delete(ALICE, sbx.id()).state()).as("delete is idempotent").isEqualTo(SandboxState.TERMINATED);
        assertThat(read(host.workspace(ALICE, sbx.id()), "out.txt")).as("workspace kept after the end").isEqualTo("hi\n");

        List<String> types = host.events(ALICE, sbx.id(), PageRequest.first(100)).data().stream().map(SandboxEvent::type).toList();
        assertThat(types).containsExactly("sandbox.creating", "sandbox.running", "sandbox.terminating", "sandbox.terminated");
    }

    @Test
    void anotherTenantSeesNothing() {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        assertThatThrownBy(() -> host.get(BOB, sbx.id())).isInstanceOf(PaddockException.class).hasMessageContaining("does not exist");
        assertThatThrownBy(() -> host.run(BOB, sbx.id(), ExecRequest.of("true"), ExecOutput.DISCARD))
                .isInstanceOf(PaddockException.class).extracting(e -> ((PaddockException) e).code()).isEqualTo("not_found");
        assertThatThrownBy(() -> host.delete(BOB, sbx.id())).isInstanceOf(PaddockException.class);
        assertThat(host.list(BOB, PageRequest.first(10), true).data()).isEmpty();
        assertThat(host.get(ALICE, sbx.id()).state()).isEqualTo(SandboxState.RUNNING);
    }

    @Test
    void malformedIdsAndUnknownDriversAreRefusedClearly() {
        assertThatThrownBy(() -> host.get(ALICE, "../../etc")).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("invalid_id");
        SandboxRequest onMissing = new SandboxRequest("qemu", null, false, null, null, null, null, null, null);
        assertThatThrownBy(() -> host.create(ALICE, onMissing)).isInstanceOf(PaddockException.class)
                .hasMessageContaining("driver 'qemu' is not available");
        SandboxRequest tooLong = new SandboxRequest(null, null, false, null, null, null, Duration.ofDays(30), null, null);
        assertThatThrownBy(() -> host.create(ALICE, tooLong)).isInstanceOf(PaddockException.class).hasMessageContaining("maximum");
    }

    @Test
    void suspendOnADriverThatCannotIsRefusedAtOnce() {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        assertThatThrownBy(() -> host.suspend(ALICE, sbx.id())).isInstanceOf(UnsupportedCapabilityException.class);
        assertThat(host.get(ALICE, sbx.id()).state()).isEqualTo(SandboxState.RUNNING);
    }

    @Test
    void lifetimeEndsTheSandbox() {
        SandboxRequest shortLived = new SandboxRequest(null, null, false, null, null, null, Duration.ofMillis(300), null, null);
        SandboxRecord sbx = host.create(ALICE, shortLived);
        await().atMost(Duration.ofSeconds(10)).until(() -> host.get(ALICE, sbx.id()).state() == SandboxState.TERMINATED);
        assertThat(host.get(ALICE, sbx.id()).stateReason()).isEqualTo("lifetime_expired");
        assertThatThrownBy(() -> host.run(ALICE, sbx.id(), ExecRequest.of("true"), ExecOutput.DISCARD))
                .isInstanceOf(PaddockException.class).hasMessageContaining("terminated");
    }

    @Test
    void idleSandboxOnADriverWithoutSuspendIsTerminated() {
        SandboxRequest idle = new SandboxRequest(null, null, false, null, null, null, null, null, Duration.ofMillis(300));
        SandboxRecord sbx = host.create(ALICE, idle);
        await().atMost(Duration.ofSeconds(10)).until(() -> host.get(ALICE, sbx.id()).state() == SandboxState.TERMINATED);
        assertThat(host.get(ALICE, sbx.id()).stateReason()).isEqualTo("idle_expired");
    }

    @Test
    void checkpointThenRestoreBringsTheWorkspaceBack() throws IOException {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        Workspace ws = host.workspace(ALICE, sbx.id());
        ws.write("keep.txt", bytes("v1"));
        ws.mkdir("dir");
        ws.write("dir/nested.txt", bytes("nested"));
        CheckpointRecord cp = host.checkpoint(ALICE, sbx.id());
        assertThat(cp.kind()).isEqualTo("workspace_tar");
        assertThat(cp.sha256()).hasSize(64);

        ws.write("keep.txt", bytes("v2"));
        ws.write("extra.txt", bytes("extra"));
        ws.delete("dir", true);
        host.restore(ALICE, sbx.id(), cp.id());

        assertThat(read(ws, "keep.txt")).isEqualTo("v1");
        assertThat(read(ws, "dir/nested.txt")).isEqualTo("nested");
        assertThatThrownBy(() -> ws.stat("extra.txt")).isInstanceOf(PaddockException.class);
        assertThat(host.checkpoints(ALICE, sbx.id(), PageRequest.first(10)).data()).extracting(CheckpointRecord::id).containsExactly(cp.id());
        assertThatThrownBy(() -> host.restore(BOB, sbx.id(), cp.id())).isInstanceOf(PaddockException.class);
        try (InputStream in = host.checkpointData(ALICE, cp.id())) {
            assertThat(in.readAllBytes()).hasSize((int) cp.sizeBytes());
        }
    }

    @Test
    void paginationWalksAllSandboxesNewestFirst() {
        for (int i = 0; i < 5; i++) host.create(ALICE, SandboxRequest.defaults());
        var first = host.list(ALICE, PageRequest.first(2), false);
        assertThat(first.data()).hasSize(2);
        assertThat(first.hasMore()).isTrue();
        var second = host.list(ALICE, new PageRequest(10, first.lastId(), null), false);
        assertThat(second.data()).hasSize(3);
        assertThat(second.hasMore()).isFalse();
        assertThat(first.data().getFirst().id()).isGreaterThan(second.data().getFirst().id());
    }

    static InputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    static String read(Workspace ws, String path) {
        try (InputStream in = ws.read(path)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
