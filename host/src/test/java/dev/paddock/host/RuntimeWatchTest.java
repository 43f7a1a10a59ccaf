package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.RuntimeListener;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a driver reports about runtimes and limits reaches the record: reason and events, refusals before any record. */
class RuntimeWatchTest {
    @TempDir Path dataDir;
    Store store;
    RuntimeHost host;
    final Remote driver = new Remote();

    /** The subprocess driver, dressed as a driver whose runtime can go away and whose backend has fixed limits. */
    final class Remote implements SandboxDriver {
        SandboxDriver inner;
        RuntimeListener listener;
        static final Limits FIXED = new Limits(128L << 20, 64, 1.0);

        @Override public String id() { return "remote"; }
        @Override public Conformance conformance() { return inner.conformance(); }
        @Override public Limits limits(Limits requested) {
            if (requested != null && !requested.equals(FIXED)) throw new PaddockException(ErrorCode.MEMORY_LIMIT_UNAVAILABLE, "fixed limits");
            return FIXED;
        }
        @Override public void watchRuntimes(RuntimeListener l) { listener = l; }
        @Override public Sandbox create(SandboxSpec spec, Fence fence) { return inner.create(spec, fence); }
        @Override public Optional<Sandbox> attach(SandboxRef ref) { return inner.attach(ref); }
        @Override public List<SandboxRef> list() { return inner.list(); }
        @Override public void destroy(SandboxRef ref) { inner.destroy(ref); }
        @Override public Optional<Workspace> workspace(SandboxRef ref) { return inner.workspace(ref); }
        @Override public void close() { inner.close(); }
    }

    @BeforeEach
    void start() {
        store = HostFixture.store(dataDir);
        driver.inner = HostFixture.subprocess(dataDir);
        host = HostFixture.host(dataDir, store, "remote", List.of(driver));
    }

    @AfterEach
    void stop() {
        host.close();
        driver.close();
        store.close();
    }

    @Test
    void aLostRuntimeIsRecordedAsReasonAndEventAndCleared() {
        SandboxRecord r = host.create(ALICE, SandboxRequest.defaults());
        assertThat(r.spec().limits()).as("the driver's limits, not the host's defaults").isEqualTo(Remote.FIXED);

        driver.listener.runtimeLost(r.id(), "tab_closed");
        driver.listener.runtimeLost(r.id(), "tab_closed");
        SandboxRecord lost = host.get(ALICE, r.id());
        assertThat(lost.state().wireName()).isEqualTo("running");
        assertThat(lost.stateReason()).isEqualTo("runtime_disconnected");

        driver.listener.runtimeRestored(r.id(), "rt_new");
        assertThat(host.get(ALICE, r.id()).stateReason()).isNull();
        List<SandboxEvent> events = host.events(ALICE, r.id(), new PageRequest(100, null, null)).data();
        assertThat(events).extracting(SandboxEvent::type).containsSubsequence("sandbox.running", "sandbox.runtime_lost", "sandbox.runtime_restored");
        assertThat(events).filteredOn(e -> e.type().equals("sandbox.runtime_lost")).as("reported once").hasSize(1)
                .first().extracting(SandboxEvent::data).isEqualTo(Map.of("reason", "tab_closed"));

        host.delete(ALICE, r.id());
        driver.listener.runtimeLost(r.id(), "tab_closed");
        assertThat(host.get(ALICE, r.id()).stateReason()).as("an ended sandbox keeps its reason").isEqualTo("user_request");
    }

    @Test
    void limitsTheDriverCannotEnforceAreRefusedBeforeAnyRecord() {
        SandboxRequest tooBig = new SandboxRequest(null, null, false, new Limits(2L << 30, 64, 4), null, null, null, null, null);
        assertThatThrownBy(() -> host.create(ALICE, tooBig)).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("memory_limit_unavailable");
        assertThat(host.list(ALICE, new PageRequest(100, null, null), true).data()).isEmpty();
        assertThat(host.defaultLimits(null)).isEqualTo(Remote.FIXED);
        assertThat(host.defaultLimits("no-such-driver")).isEqualTo(Limits.DEFAULT);
    }
}
