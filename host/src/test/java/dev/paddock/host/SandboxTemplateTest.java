package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kinds of sandbox: the host applies the named template once, records the kind, and calls its hooks on every path. */
class SandboxTemplateTest {
    @TempDir Path dataDir;
    Store store;
    RuntimeHost host;
    final Recorder recorder = new Recorder("recorder", false);
    final Recorder tidy = new Recorder("tidy", true);

    @BeforeEach
    void start() {
        store = HostFixture.store(dataDir);
        host = startHost();
    }

    @AfterEach
    void stop() {
        host.close();
        store.close();
    }

    private RuntimeHost startHost() {
        RuntimeHost h = new RuntimeHost(HostFixture.config(dataDir, "subprocess"), store, List.<SandboxDriver>of(HostFixture.subprocess(dataDir)), Clock.systemUTC());
        h.addTemplate(recorder);
        h.addTemplate(tidy);
        h.start();
        return h;
    }

    @Test
    void createAppliesTheTemplateOnceRecordsTheKindAndCallsOnCreatedWhenRunning() {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults().withTemplate("recorder", Map.of("colour", "green")));
        assertThat(recorder.applied).containsExactly("green");
        assertThat(sbx.spec().template()).isEqualTo("recorder");
        assertThat(sbx.spec().env()).containsEntry("KIND", "recorded");
        assertThat(recorder.calls).containsExactly("created " + sbx.id() + " running");
        assertThat(tidy.calls).isEmpty();
    }

    @Test
    void deleteCallsOnDeletedAndKeepsTheFilesOfAKindThatDoesNotPurge() {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults().withTemplate("recorder"));
        host.workspace(ALICE, sbx.id()).write("kept.txt", bytes("x"));
        host.delete(ALICE, sbx.id());
        assertThat(recorder.calls).containsExactly("created " + sbx.id() + " running", "deleted " + sbx.id() + " terminated purged=false");
        assertThat(host.workspace(ALICE, sbx.id()).stat("kept.txt")).isNotNull();

        host.purge(ALICE, sbx.id());
        assertThat(recorder.calls).last().isEqualTo("deleted " + sbx.id() + " terminated purged=true");
        host.delete(ALICE, sbx.id());
        assertThat(recorder.calls).as("deleting an ended sandbox again ends nothing").hasSize(3);
    }

    @Test
    void aKindThatPurgesOnDeleteLosesItsFilesUnlessTheCallerSaysNot() {
        SandboxRecord purged = host.create(ALICE, SandboxRequest.defaults().withTemplate("tidy"));
        host.workspace(ALICE, purged.id()).write("download.bin", bytes("x"));
        host.delete(ALICE, purged.id());
        assertThat(tidy.calls).containsExactly("created " + purged.id() + " running",
                "deleted " + purged.id() + " terminated purged=false", "deleted " + purged.id() + " terminated purged=true");
        assertThatThrownBy(() -> host.workspace(ALICE, purged.id()).stat("download.bin")).isInstanceOf(PaddockException.class);

        SandboxRecord kept = host.create(ALICE, SandboxRequest.defaults().withTemplate("tidy"));
        host.workspace(ALICE, kept.id()).write("download.bin", bytes("x"));
        host.delete(ALICE, kept.id(), false);
        assertThat(host.workspace(ALICE, kept.id()).stat("download.bin")).isNotNull();
        assertThat(tidy.calls).last().isEqualTo("deleted " + kept.id() + " terminated purged=false");
    }

    @Test
    void aSandboxThatEndsByItsLifetimeReachesOnDeletedToo() {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults().withTemplate("recorder").withTimeout(Duration.ofMillis(300)));
        await().atMost(Duration.ofSeconds(10)).until(() -> recorder.calls.contains("deleted " + sbx.id() + " terminated purged=false"));
        assertThat(host.get(ALICE, sbx.id()).stateReason()).isEqualTo("lifetime_expired");
    }

    @Test
    void theKindIsInTheRecordAfterARestart() {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults().withTemplate("recorder"));
        host.close();
        host = startHost();
        assertThat(host.get(ALICE, sbx.id()).spec().template()).isEqualTo("recorder");
    }

    @Test
    void aPlainSandboxHasNoKindAndReachesNoHook() {
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        host.delete(ALICE, sbx.id(), true);
        assertThat(sbx.spec().template()).isNull();
        assertThat(recorder.calls).isEmpty();
        assertThat(tidy.calls).isEmpty();
    }

    @Test
    void anUnknownTemplateAndAnEnvironmentNameATemplateKeepsAreRefusedBeforeAnyRecord() {
        assertThatThrownBy(() -> host.create(ALICE, SandboxRequest.defaults().withTemplate("kiosk")))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("unknown_template"));
        assertThatThrownBy(() -> host.create(ALICE, SandboxRequest.defaults().withEnv(Map.of("RECORDER_MODE", "x"))))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("reserved_env"));
        assertThat(host.list(ALICE, dev.paddock.core.store.PageRequest.first(10), true).data()).isEmpty();
    }

    @Test
    void aFailingHookNeitherFailsTheCreateNorTheDelete() {
        recorder.failing = true;
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults().withTemplate("recorder"));
        assertThat(sbx.state()).isEqualTo(SandboxState.RUNNING);
        assertThat(host.delete(ALICE, sbx.id()).state()).isEqualTo(SandboxState.TERMINATED);
    }

    @Test
    void noLockOutlivesTheOperationsOfManySandboxes() {
        for (int i = 0; i < 20; i++) {
            SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults().withTemplate("recorder"));
            host.checkpoint(ALICE, sbx.id());
            host.delete(ALICE, sbx.id(), true);
        }
        assertThat(host.locks().size()).isZero();
    }

    private static ByteArrayInputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Sets {@code KIND}, keeps {@code RECORDER_*} names, and writes down every hook call. */
    static final class Recorder implements SandboxTemplate {
        final String name;
        final boolean purges;
        final List<String> applied = new CopyOnWriteArrayList<>();
        final List<String> calls = new CopyOnWriteArrayList<>();
        volatile boolean failing;

        Recorder(String name, boolean purges) {
            this.name = name;
            this.purges = purges;
        }

        @Override public String name() { return name; }

        @Override
        public SandboxRequest apply(SandboxRequest request) {
            applied.add(request.templateOptions().getOrDefault("colour", "none"));
            Map<String, String> env = new HashMap<>(request.env() == null ? Map.of() : request.env());
            env.put("KIND", "recorded");
            return request.withEnv(env);
        }

        @Override public Optional<String> reservedEnvPrefix() { return Optional.of("RECORDER_"); }

        @Override public boolean purgesOnDelete() { return purges; }

        @Override
        public void onCreated(SandboxRecord sandbox) {
            calls.add("created " + sandbox.id() + " " + sandbox.state().wireName());
            if (failing) throw new IllegalStateException("hook failed");
        }

        @Override
        public void onDeleted(SandboxRecord sandbox, boolean purged) {
            calls.add("deleted " + sandbox.id() + " " + sandbox.state().wireName() + " purged=" + purged);
            if (failing) throw new IllegalStateException("hook failed");
        }
    }
}
