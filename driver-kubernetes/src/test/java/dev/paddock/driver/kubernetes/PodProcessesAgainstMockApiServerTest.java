package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.TerminationReason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Background processes kept by the pod: started through the exec API, they outlive the stream that started them and
 * the server, and end with the pod. The fake kubelet's pods share the host's pid namespace, so a process is found on
 * the host by a word in its arguments.
 */
@Tag("bwrap")
class PodProcessesAgainstMockApiServerTest extends SandboxOnMockCluster {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    PodProcessesAgainstMockApiServerTest() {
        super("sbx_procs");
    }

    @Test
    void aBackgroundProcessRunsOnItsOutputIsKeptAndItsExitCodeReportedAgainstMockApiServer() throws Exception {
        ProcessInfo started = sandbox.startProcess(new ExecRequest(List.of("/bin/sh", "-c", "echo \"hello $WHO\"; echo oops >&2; sleep 1; exit 7"),
                Map.of("WHO", "pod"), "/workspace", null, null));

        assertThat(started.pid()).isPositive();
        assertThat(started.running()).isTrue();
        assertThat(sandbox.processes()).singleElement().satisfies(p -> {
            assertThat(p.pid()).isEqualTo(started.pid());
            assertThat(p.argv()).containsExactly("/bin/sh", "-c", "echo \"hello $WHO\"; echo oops >&2; sleep 1; exit 7");
        });
        await().atMost(PATIENCE).until(() -> !sandbox.processes().getFirst().running());
        assertThat(sandbox.processes().getFirst().exitCode()).isEqualTo(7);
        assertThat(logs(started.pid(), 0)).isEqualTo("hello pod\noops\n");
        assertThat(logs(started.pid(), 6)).isEqualTo("pod\noops\n");
        assertThat(sandbox.processLogs(started.pid(), 0, 5)).isEqualTo("hello".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void stdinAndTheWorkingDirectoryReachABackgroundProcessAgainstMockApiServer() throws Exception {
        sandbox.workspace().mkdir("sub");
        ProcessInfo p = sandbox.startProcess(new ExecRequest(List.of("/bin/sh", "-c", "pwd; wc -c"), Map.of(), "/workspace/sub", null,
                "seven b".getBytes(StandardCharsets.UTF_8)));

        await().atMost(PATIENCE).until(() -> logs(p.pid(), 0).lines().count() == 2);
        assertThat(logs(p.pid(), 0).lines().toList()).containsExactly("/workspace/sub", "7");
        assertThatThrownBy(() -> sandbox.startProcess(new ExecRequest(List.of("true"), Map.of(), "/workspace/absent", null, null)))
                .isInstanceOf(PaddockException.class).satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("invalid_path"));
    }

    @Test
    void aSignalEndsTheProcessAndWhatItStartedAgainstMockApiServer() throws Exception {
        ProcessInfo p = sandbox.startProcess(ExecRequest.shell("sleep " + (RUN + 81) + " & sleep " + (RUN + 82)));
        await().atMost(PATIENCE).until(() -> hostProcesses("sleep (" + (RUN + 81) + "|" + (RUN + 82) + ")") == 2);

        sandbox.signalProcess(p.pid(), 15);

        await().atMost(PATIENCE).until(() -> !sandbox.processes().getFirst().running());
        assertThat(sandbox.processes().getFirst().exitCode()).isEqualTo(128 + 15);
        await().atMost(PATIENCE).until(() -> hostProcesses("sleep (" + (RUN + 81) + "|" + (RUN + 82) + ")") == 0);
    }

    @Test
    void unknownPidsAndBadArgumentsAreRefusedAgainstMockApiServer() {
        assertThatThrownBy(() -> sandbox.processLogs(4242, 0, 10)).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("not_found"));
        assertThatThrownBy(() -> sandbox.signalProcess(4242, 15)).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("not_found"));
        assertThatThrownBy(() -> sandbox.signalProcess(4242, 0)).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("invalid_signal"));
        assertThatThrownBy(() -> sandbox.processLogs(4242, -1, 10)).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("invalid_range"));
        assertThat(sandbox.processes()).isEmpty();
    }

    @Test
    void aRestartedServerFindsTheProcessStillRunningAgainstMockApiServer() throws Exception {
        ProcessInfo p = sandbox.startProcess(ExecRequest.shell("echo before; sleep 6091; echo after"));
        driver.close();

        driver = cluster.driver("install-a");
        Sandbox attached = driver.attach(new SandboxRef("sbx_procs", KubernetesDriver.ID, ObjectNames.pod("sbx_procs"))).orElseThrow();
        assertThat(attached.processes()).singleElement().satisfies(q -> {
            assertThat(q.pid()).isEqualTo(p.pid());
            assertThat(q.running()).isTrue();
        });
        assertThat(new String(attached.processLogs(p.pid(), 0, 100), StandardCharsets.UTF_8)).isEqualTo("before\n");
        attached.signalProcess(p.pid(), 9);
        await().atMost(PATIENCE).until(() -> !attached.processes().getFirst().running());
    }

    @Test
    void terminateAndSuspendEndBackgroundProcessesAgainstMockApiServer() throws Exception {
        sandbox.startProcess(ExecRequest.shell("sleep " + (RUN + 101)));
        await().atMost(PATIENCE).until(() -> hostProcesses("sleep " + (RUN + 101)) == 1);

        sandbox.suspend();
        await().atMost(PATIENCE).until(() -> hostProcesses("sleep " + (RUN + 101)) == 0);
        sandbox.resume();
        assertThat(sandbox.processes()).as("the pod's process table went with the pod").isEmpty();

        sandbox.startProcess(ExecRequest.shell("sleep " + (RUN + 102)));
        await().atMost(PATIENCE).until(() -> hostProcesses("sleep " + (RUN + 102)) == 1);
        sandbox.terminate(TerminationReason.USER_REQUEST);
        await().atMost(PATIENCE).until(() -> hostProcesses("sleep " + (RUN + 102)) == 0);
    }

    private String logs(long pid, long offset) {
        return new String(sandbox.processLogs(pid, offset, 1 << 16), StandardCharsets.UTF_8);
    }

    /** How many processes on the host have a command line matching {@code regex} (the pods share its pid namespace). */
    /** Sleep lengths of this run only: processes are counted host-wide, and another copy of the suite may run beside. */
    private static final long RUN = 100_000 + java.util.concurrent.ThreadLocalRandom.current().nextLong(800_000) * 1000;

    private static long hostProcesses(String regex) {
        return ProcessHandle.allProcesses().filter(h -> {
            try {
                // read from /proc: ProcessHandle.Info drops the arguments of other users' processes
                String cmd = new String(Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline")), StandardCharsets.UTF_8);
                return cmd.replace('\0', ' ').strip().matches(regex);
            } catch (java.io.IOException | RuntimeException gone) {
                return false;
            }
        }).count();
    }
}
