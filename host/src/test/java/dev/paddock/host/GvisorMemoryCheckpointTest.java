package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static dev.paddock.host.HostFixture.BOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import dev.paddock.driver.gvisor.GvisorConfig;
import dev.paddock.driver.gvisor.GvisorDriver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Memory checkpoints through the host on real gVisor: taken beside the workspace archive and counted in the
 * tenant's storage, restored in place (the processes and their files come back together) and forked into a new
 * sandbox; a driver without them answers unsupported_capability.
 */
@Tag("gvisor")
class GvisorMemoryCheckpointTest {
    private static final String COUNTER = "t=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); i=0;"
            + " while true; do i=$((i+1)); echo \"$i $t\" > /workspace/counter; sleep 0.05; done";
    private Path dataDir;
    private Store store;
    private GvisorDriver gvisor;
    private RuntimeHost host;

    @BeforeEach
    void setUp() throws IOException {
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pgm");
        List<String> problems = GvisorDriver.checkHost(GvisorConfig.defaults(dataDir));
        assumeTrue(problems.isEmpty(), () -> "gVisor cannot run here: " + problems);
        store = HostFixture.store(dataDir);
        gvisor = new GvisorDriver(GvisorConfig.defaults(dataDir));
        host = new RuntimeHost(HostFixture.config(dataDir, "gvisor"), store, List.of(gvisor, HostFixture.subprocess(dataDir)), Clock.systemUTC());
        host.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (host != null) host.close();
        if (store != null) store.close();
        if (gvisor != null) gvisor.list().forEach(gvisor::destroy);
        new ProcessBuilder("rm", "-rf", dataDir.toString()).start().waitFor();
    }

    @Test
    void aMemoryCheckpointRestoredInPlaceBringsBackTheProcessAndItsFiles() throws Exception {
        String id = host.create(ALICE, SandboxRequest.defaults()).id();
        host.startProcess(ALICE, id, ExecRequest.shell(COUNTER));
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(id) > 3);
        sh(id, "echo before > /workspace/note.txt");

        CheckpointRecord cp = host.checkpoint(ALICE, id, "memory");
        String token = token(id);
        long saved = counter(id);

        assertThat(cp.kind()).isEqualTo("memory");
        assertThat(cp.sizeBytes()).as("archive and image").isGreaterThan(Files.size(dataDir.resolve("checkpoints").resolve(cp.id() + ".tar")));
        assertThat(store.checkpoints().totalBytes(ALICE.tenantId())).isEqualTo(cp.sizeBytes());
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(id) > saved + 5); // it left the sandbox running
        sh(id, "echo after > /workspace/note.txt");

        SandboxRecord restored = host.restore(ALICE, id, cp.id());

        assertThat(restored.state()).isEqualTo(SandboxState.RUNNING);
        assertThat(sh(id, "cat /workspace/note.txt")).isEqualTo("before\n");
        long back = counter(id);
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(id) > back);
        assertThat(token(id)).as("the saved process counts on").isEqualTo(token);
    }

    @Test
    void aSandboxCreatedFromAMemoryCheckpointRunsTheSavedProcessesBesideTheOriginal() throws Exception {
        String id = host.create(ALICE, SandboxRequest.defaults()).id();
        host.startProcess(ALICE, id, ExecRequest.shell(COUNTER));
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(id) > 3);
        CheckpointRecord cp = host.checkpoint(ALICE, id, "memory");
        String token = token(id);

        SandboxRecord fork = host.createFromCheckpoint(ALICE, cp.id());

        assertThat(fork.id()).isNotEqualTo(id);
        assertThat(fork.state()).isEqualTo(SandboxState.RUNNING);
        long start = counter(fork.id());
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(fork.id()) > start);
        assertThat(token(fork.id())).isEqualTo(token);
        long original = counter(id);
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(id) > original);
        assertThatThrownBy(() -> host.createFromCheckpoint(BOB, cp.id())).as("another tenant's checkpoint")
                .isInstanceOf(PaddockException.class).satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("not_found"));
    }

    @Test
    void aForkTakesTheRunningProcessesAlongAndLeavesNoCheckpointBehind() throws Exception {
        String id = host.create(ALICE, SandboxRequest.defaults()).id();
        host.startProcess(ALICE, id, ExecRequest.shell(COUNTER));
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(id) > 3);
        sh(id, "echo mine > /workspace/note.txt");
        String token = token(id);

        SandboxRecord fork = host.fork(ALICE, id);

        assertThat(fork.id()).isNotEqualTo(id);
        long start = counter(fork.id());
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(fork.id()) > start);
        assertThat(token(fork.id())).as("the source's process counts on in the fork").isEqualTo(token);
        assertThat(sh(fork.id(), "cat /workspace/note.txt")).isEqualTo("mine\n");
        assertThat(store.checkpoints().totalBytes(ALICE.tenantId())).as("the fork's memory checkpoint is deleted").isZero();
    }

    @Test
    void aDriverWithoutMemoryCheckpointsRefusesThemClearly() {
        String id = host.create(ALICE, SandboxRequest.defaults().withDriver("subprocess")).id();

        assertThatThrownBy(() -> host.checkpoint(ALICE, id, "memory")).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("unsupported_capability"));
        assertThatThrownBy(() -> host.checkpoint(ALICE, id, "everything")).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("invalid_checkpoint_type"));
        CheckpointRecord files = host.checkpoint(ALICE, id, null);
        assertThatThrownBy(() -> host.createFromCheckpoint(ALICE, files.id())).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("invalid_checkpoint_type"));
    }

    private long counter(String id) {
        try (InputStream in = host.workspace(ALICE, id).read("counter")) {
            String v = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            return v.isEmpty() ? 0 : Long.parseLong(v.split(" ")[0]);
        } catch (PaddockException | IOException | NumberFormatException e) {
            return 0;
        }
    }

    private String token(String id) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> {
            try (InputStream in = host.workspace(ALICE, id).read("counter")) {
                String[] f = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim().split(" ");
                return f.length == 2 ? f[1] : "";
            } catch (PaddockException | IOException e) {
                return "";
            }
        }, t -> !t.isEmpty());
    }

    private String sh(String id, String script) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        host.run(ALICE, id, ExecRequest.shell(script), new ExecOutput() {
            @Override
            public void stdout(byte[] data, int offset, int length) {
                synchronized (out) { out.write(data, offset, length); }
            }

            @Override
            public void stderr(byte[] data, int offset, int length) {
                stdout(data, offset, length);
            }
        });
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
