package dev.paddock.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.access.Principal;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.CheckpointStore;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import dev.paddock.driver.subprocess.SubprocessDriver;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints on their own: one sandbox of the subprocess driver and a real store, no runtime host around them. */
class CheckpointsTest {
    @TempDir Path dataDir;
    Store store;
    SubprocessDriver driver;
    Sandbox sandbox;
    SandboxRecord record;
    final List<String> events = new CopyOnWriteArrayList<>();
    Checkpoints checkpoints;

    @BeforeEach
    void start() throws Exception {
        store = HostFixture.store(dataDir);
        driver = HostFixture.subprocess(dataDir);
        Fence fence = new Fence("host_test", 1);
        SandboxSpec spec = SandboxSpec.defaults("sbx_" + "0".repeat(26), "tenant-alice");
        Instant now = Instant.now();
        record = new SandboxRecord(spec.sandboxId(), spec.tenantId(), driver.id(), SandboxState.RUNNING, spec, fence, null, null, null, null,
                now, now, now, null);
        store.sandboxes().insert(record.withState(SandboxState.CREATING, null, now));
        store.sandboxes().transition(record.id(), fence, SandboxState.RUNNING, null);
        sandbox = driver.create(spec, fence);
        Files.createDirectories(HostFixture.config(dataDir, "subprocess").checkpointsDir());
        Files.writeString(HostFixture.config(dataDir, "subprocess").checkpointsDir().resolve("cp_left.tar.partial"), "half");
        checkpoints = new Checkpoints(HostFixture.config(dataDir, "subprocess"), null, new OneSandbox(), new SandboxLocks(),
                tenant -> store.checkpoints().totalBytes(tenant));
    }

    @AfterEach
    void stop() {
        sandbox.terminate(TerminationReason.USER_REQUEST);
        store.close();
    }

    @Test
    void aCheckpointIsAPrivateArchiveWithItsDigestAndRestoresTheWorkspace() throws Exception {
        sandbox.workspace().write("keep.txt", bytes("v1"));
        CheckpointRecord cp = checkpoints.take(record);
        assertThat(events).containsExactly("sandbox.checkpointed");
        Path archive = dataDir.resolve("checkpoints").resolve(cp.id() + ".tar");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(archive))).isEqualTo("rw-------");
        try (InputStream in = checkpoints.data("tenant-alice", cp.id())) {
            assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes()))).isEqualTo(cp.sha256());
        }
        assertThat(checkpoints.list(record, PageRequest.first(10)).data()).extracting(CheckpointRecord::id).containsExactly(cp.id());

        sandbox.workspace().write("keep.txt", bytes("v2"));
        sandbox.workspace().write("extra.txt", bytes("new"));
        checkpoints.restore(record, cp.id());
        try (InputStream in = sandbox.workspace().read("keep.txt")) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("v1");
        }
        assertThatThrownBy(() -> sandbox.workspace().stat("extra.txt")).isInstanceOf(PaddockException.class);
    }

    @Test
    void anotherTenantsCheckpointIsNotFoundAndADeleteTakesArchiveAndRecord() throws Exception {
        CheckpointRecord cp = checkpoints.take(record);
        assertThatThrownBy(() -> checkpoints.data("tenant-bob", cp.id()))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("not_found"));
        checkpoints.delete(record, cp.id());
        assertThat(dataDir.resolve("checkpoints").resolve(cp.id() + ".tar")).doesNotExist();
        assertThat(store.checkpoints().find(cp.id())).isEmpty();
    }

    @Test
    void theDirectoryIsPrivateAndWhatADeadHostLeftHalfWrittenIsGoneAtStart() throws Exception {
        assertThat(dataDir.resolve("checkpoints").resolve("cp_left.tar.partial")).doesNotExist();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir.resolve("checkpoints")))).isEqualTo("rwx------");
    }

    /**
     * The process dies after an archive landed in the (shared) directory and before its record was stored: an Error
     * from the store's insert stands for the kill, since no clean-up of {@code take} runs past it. Another node
     * starting on the same directory leaves the archive alone (for all it knows its record is being stored); the
     * node's own next start deletes it, and keeps every archive a record names.
     */
    @Test
    void anArchiveWhoseRecordWasNeverStoredGoesAtTheNodesNextStartOnly() throws Exception {
        sandbox.workspace().write("a.txt", bytes("a"));
        CheckpointRecord recorded = checkpoints.take(record);
        Path dir = dataDir.resolve("checkpoints");
        HostConfig config = HostFixture.config(dataDir, "subprocess");
        Checkpoints nodeA = new Checkpoints(config, "node-a", new OneSandbox(killedAtInsert()), new SandboxLocks(), tenant -> 0);
        assertThatThrownBy(() -> nodeA.take(record)).isInstanceOf(Killed.class);
        List<Path> orphans;
        try (var files = Files.list(dir)) {
            orphans = files.filter(p -> p.getFileName().toString().endsWith(".tar") && !p.getFileName().toString().startsWith(recorded.id())).toList();
        }
        assertThat(orphans).as("the archive landed without a record").hasSize(1);

        new Checkpoints(config, "node-b", new OneSandbox(store), new SandboxLocks(), tenant -> 0);
        assertThat(orphans.getFirst()).as("another node's start leaves it").exists();

        new Checkpoints(config, "node-a", new OneSandbox(store), new SandboxLocks(), tenant -> 0);
        assertThat(orphans.getFirst()).as("the node's own restart deletes it").doesNotExist();
        assertThat(dir.resolve(recorded.id() + ".tar")).as("a recorded archive stays").exists();
        assertThat(dir.resolve(".partials").resolve("node-a")).isEmptyDirectory();
    }

    /** The store, but dead at the moment a checkpoint's record would be stored. */
    private Store killedAtInsert() {
        CheckpointStore dying = proxy(CheckpointStore.class, (m, args) -> {
            if (m.getName().equals("insert")) throw new Killed();
            return m.invoke(store.checkpoints(), args);
        });
        return proxy(Store.class, (m, args) -> m.getName().equals("checkpoints") ? dying : m.invoke(store, args));
    }

    private interface Forward {
        Object call(Method m, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, Forward forward) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
            try {
                return forward.call(m, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }

    /** The process killed: nothing after it runs. */
    private static final class Killed extends Error {}

    private static ByteArrayInputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    /** The host as checkpoints see it, for the one sandbox of this test; what checkpoints never call is refused. */
    private final class OneSandbox implements OwnedSandboxes {
        private final Store store;

        OneSandbox() {
            this(CheckpointsTest.this.store);
        }

        OneSandbox(Store store) {
            this.store = store;
        }

        @Override public String ownerId() { return "host_test"; }
        @Override public Clock clock() { return Clock.systemUTC(); }
        @Override public Store store() { return store; }
        @Override public SandboxDriver driver(SandboxRecord r) { return driver; }
        @Override public SandboxRecord reload(String id) { return store.sandboxes().find(id).orElseThrow(); }
        @Override public Sandbox live(String id) { return sandbox; }
        @Override public Sandbox usable(SandboxRecord r) { return sandbox; }
        @Override public Workspace workspace(SandboxRecord r) { return sandbox.workspace(); }
        @Override public void event(SandboxRecord r, String type, Map<String, Object> data) { events.add(type); }
        @Override public List<SandboxRecord> activeRecords() { throw new UnsupportedOperationException(); }
        @Override public Map<String, SandboxDriver> drivers() { throw new UnsupportedOperationException(); }
        @Override public void adopt(String id, Sandbox s) { throw new UnsupportedOperationException(); }
        @Override public SandboxSpec openEgress(SandboxSpec spec) { throw new UnsupportedOperationException(); }
        @Override public Instant lastActivity(SandboxRecord r) { throw new UnsupportedOperationException(); }
        @Override public void flushActivity(SandboxRecord r) { throw new UnsupportedOperationException(); }
        @Override public SandboxRecord suspend(SandboxRecord r, String reason) { throw new UnsupportedOperationException(); }
        @Override public SandboxRecord terminate(SandboxRecord r, TerminationReason reason) { throw new UnsupportedOperationException(); }
        @Override public void fail(SandboxRecord r, String code, String reason) { throw new UnsupportedOperationException(); }
        @Override public void ifUnlocked(String id, Runnable body) { throw new UnsupportedOperationException(); }
        @Override public SandboxRecord find(Principal caller, String id) { throw new UnsupportedOperationException(); }
        @Override public SandboxDriver loadedDriver(String driverId) { throw new UnsupportedOperationException(); }
        @Override public void requireDriverRuns(SandboxRecord r) { throw new UnsupportedOperationException(); }
        @Override public void requireEgress(NetworkPolicy network, List<CredentialBinding> credentials) { throw new UnsupportedOperationException(); }
        @Override public SandboxRecord create(Principal caller, SandboxRequest request, SandboxDriver driver, Consumer<Sandbox> fill) { throw new UnsupportedOperationException(); }
        @Override public SandboxRecord start(SandboxRecord record, SandboxDriver driver, String op, Callable<Sandbox> backend) {
            throw new UnsupportedOperationException();
        }
        @Override public void removeUnfinished(Principal caller, SandboxRecord created) { throw new UnsupportedOperationException(); }
    }
}
