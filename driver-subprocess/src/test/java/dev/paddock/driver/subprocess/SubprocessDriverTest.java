package dev.paddock.driver.subprocess;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class SubprocessDriverTest {
    @TempDir Path dataDir;
    SubprocessDriver driver;
    Sandbox sandbox;

    @BeforeEach
    void setUp() {
        driver = new SubprocessDriver(dataDir);
        sandbox = driver.create(SandboxSpec.defaults("sbx_test", "tenant"), new Fence("host-a", 1));
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    @Test
    void refusesToExistOutsideTestMode() {
        String before = System.getProperty("paddock.test-mode");
        System.clearProperty("paddock.test-mode");
        try {
            org.junit.jupiter.api.Assumptions.assumeFalse("1".equals(System.getenv("PADDOCK_TEST_MODE")), "test mode forced by the environment");
            assertThatThrownBy(() -> new SubprocessDriver(dataDir))
                    .isInstanceOf(PaddockException.class)
                    .hasMessageContaining("without any isolation")
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("test_mode_required"));
        } finally {
            if (before != null) System.setProperty("paddock.test-mode", before);
        }
    }

    @Test
    void commandsRunInTheWorkspaceDirectoryWithACleanEnvironment() throws Exception {
        Path workspace = dataDir.resolve("sandboxes/sbx_test/workspace");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExecRequest request = new ExecRequest(List.of("/bin/sh", "-c", "pwd; echo \"$PATH\"; env | grep -c PADDOCK_SECRET_FROM_HOST || true"),
                Map.of(), null, null, null);

        ExecResult result = sandbox.exec(request, collect(out)).await();

        assertThat(result.exitCode()).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly(workspace.toRealPath().toString(), SubprocessSandbox.PATH, "0");
    }

    @Test
    void aCwdUnderTheWorkspaceMapsToTheHostDirectory() throws Exception {
        sandbox.workspace().mkdir("sub/dir");
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        sandbox.exec(new ExecRequest(List.of("pwd"), Map.of(), "/workspace/sub/dir", null, null), collect(out)).await();

        assertThat(out.toString(StandardCharsets.UTF_8).trim()).endsWith("/workspace/sub/dir");
        assertThatThrownBy(() -> sandbox.exec(new ExecRequest(List.of("pwd"), Map.of(), "/etc", null, null), ExecOutput.DISCARD))
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("invalid_cwd"));
    }

    @Test
    void backgroundProcessesKeepTheirLogsAndCanBeSignalled() {
        ProcessInfo started = sandbox.startProcess(ExecRequest.shell("echo ready; trap 'echo got-term; exit 3' TERM; while true; do sleep 0.05; done"));

        await().until(() -> new String(sandbox.processLogs(started.pid(), 0, 100), StandardCharsets.UTF_8).contains("ready"));
        assertThat(sandbox.processes()).extracting(ProcessInfo::pid, ProcessInfo::running).containsExactly(org.assertj.core.groups.Tuple.tuple(started.pid(), true));
        sandbox.signalProcess(started.pid(), 15);

        await().until(() -> !sandbox.processes().getFirst().running());
        assertThat(sandbox.processes().getFirst().exitCode()).isEqualTo(3);
        String afterReady = new String(sandbox.processLogs(started.pid(), "ready\n".length(), 100), StandardCharsets.UTF_8);
        assertThat(afterReady).contains("got-term").doesNotContain("ready");
        assertThatThrownBy(() -> sandbox.processLogs(999_999_999L, 0, 10)).isInstanceOf(PaddockException.class);
    }

    @Test
    void timeoutKillsTheWholeProcessTree() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExecRequest request = ExecRequest.shell("sleep 60 & echo $!; sleep 60").withTimeout(Duration.ofMillis(500));

        ExecResult result = sandbox.exec(request, collect(out)).await();

        assertThat(result.timedOut()).isTrue();
        assertThat(result.signal()).isEqualTo(9);
        long child = Long.parseLong(out.toString(StandardCharsets.UTF_8).trim());
        await().until(() -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void workspaceOutlivesTheSandbox() throws Exception {
        sandbox.exec(ExecRequest.shell("echo kept > result.txt"), ExecOutput.DISCARD).await();
        sandbox.terminate(TerminationReason.USER_REQUEST);

        try (var in = driver.workspace(sandbox.ref()).orElseThrow().read("result.txt")) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("kept\n");
        }
        assertThat(Files.exists(dataDir.resolve("sandboxes/sbx_test/workspace/result.txt"))).isTrue();
    }

    @Test
    void hostileSandboxIdsCannotPickTheHostDirectory() {
        assertThatThrownBy(() -> driver.create(SandboxSpec.defaults("../../etc", "t"), new Fence("h", 1)))
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("invalid_sandbox_id"));
    }

    private static ExecOutput collect(ByteArrayOutputStream out) {
        return new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { synchronized (out) { out.write(d, o, l); } }
            @Override public void stderr(byte[] d, int o, int l) {}
        };
    }
}
