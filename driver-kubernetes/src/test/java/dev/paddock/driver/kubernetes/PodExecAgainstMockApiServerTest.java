package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Commands through the exec API, end to end: the driver's exec over the mock API server's WebSocket to the fake
 * kubelet, which runs them for real in bwrap as the pod's uid.
 */
@Tag("bwrap")
class PodExecAgainstMockApiServerTest extends SandboxOnMockCluster {
    PodExecAgainstMockApiServerTest() {
        super("sbx_exec");
    }

    record Run(ExecResult result, String stdout, String stderr) {}

    Run run(ExecRequest request) throws InterruptedException {
        BoundedBuffer out = new BoundedBuffer(1 << 16);
        BoundedBuffer err = new BoundedBuffer(1 << 16);
        ExecResult r = sandbox.exec(request, ExecOutput.into(out, err)).await();
        return new Run(r, out.text(), err.text());
    }

    @Test
    void execStreamsStdoutAndStderrAndReportsTheExitCodeAgainstMockApiServer() throws Exception {
        Run r = run(ExecRequest.shell("echo out; echo err >&2; exit 3"));

        assertThat(r.result().exitCode()).isEqualTo(3);
        assertThat(r.result().timedOut()).isFalse();
        assertThat(r.stdout()).isEqualTo("out\n");
        assertThat(r.stderr()).isEqualTo("err\n");
    }

    @Test
    void execRunsAsTheSandboxUidInTheRequestedDirectoryWithItsEnvironmentAgainstMockApiServer() throws Exception {
        sandbox.workspace().mkdir("sub");
        Run r = run(new ExecRequest(List.of("/bin/sh", "-c", "id -u; pwd; echo $COLOR"), Map.of("COLOR", "green"), "/workspace/sub", null, null));

        assertThat(r.stdout()).isEqualTo(KubernetesConfig.DEFAULT_UID + "\n/workspace/sub\ngreen\n");
    }

    @Test
    void stdinBytesReachTheCommandFollowedByEndOfFileAgainstMockApiServer() throws Exception {
        Run r = run(ExecRequest.of("wc", "-c").withStdin("twelve bytes".getBytes(StandardCharsets.UTF_8)));
        Run none = run(ExecRequest.of("cat"));

        assertThat(r.stdout().strip()).isEqualTo("12");
        assertThat(none.result().exitCode()).isZero();
        assertThat(none.stdout()).isEmpty();
    }

    /**
     * Stdin goes out as many WebSocket messages; a command that reads slowly fills the socket buffers, so a message
     * is still being sent when the next one is ready. The JDK's WebSocket refuses a send while another is pending,
     * which lost the command's result ("could not send"): sends are queued instead, and every byte arrives in order.
     * (The client never closes stdin, so the command reads exactly the bytes it is given.)
     */
    @Test
    void stdinLargerThanTheSocketBuffersReachesASlowReaderWholeAgainstMockApiServer() throws Exception {
        byte[] bytes = new byte[8 << 20];
        new Random(17).nextBytes(bytes);
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        try (var api = cluster.client()) {
            String pod = api.pods().inNamespace(MockCluster.NAMESPACE).list().getItems().getFirst().getMetadata().getName();
            PodExec exec = new PodExec(api, MockCluster.NAMESPACE, pod);

            PodExec.Result r = exec.run(List.of("/bin/sh", "-c", "sleep 1; head -c " + bytes.length + " | sha256sum"), new ByteArrayInputStream(bytes));

            assertThat(r.exitCode()).isZero();
            assertThat(new String(r.stdout(), StandardCharsets.UTF_8)).startsWith(expected);
        }
    }

    @Test
    void aMissingProgramAndAMissingDirectoryAreReportedAgainstMockApiServer() throws Exception {
        Run missing = run(ExecRequest.of("no-such-program-here"));
        Run noDir = run(new ExecRequest(List.of("true"), Map.of(), "/workspace/absent", null, null));

        assertThat(missing.result().exitCode()).isEqualTo(127);
        assertThat(noDir.result().exitCode()).isEqualTo(126);
        assertThat(noDir.stderr()).contains("/workspace/absent");
    }

    @Test
    void aCommandPastItsTimeoutIsKilledInThePodAgainstMockApiServer() throws Exception {
        Run r = run(ExecRequest.shell("echo started; sleep 6071 & sleep 6072").withTimeout(Duration.ofSeconds(2)));

        assertThat(r.result().timedOut()).isTrue();
        assertThat(r.result().signal()).isEqualTo(9);
        assertThat(r.stdout()).isEqualTo("started\n");
        // the command and the child it started in its session are gone, not only the stream (the fake kubelet's pods
        // share the host's pid namespace, so the sleeps are told apart by their arguments)
        await().atMost(Duration.ofSeconds(10)).until(() -> run(ExecRequest.shell("pgrep -f 'sleep 607[12]' || true")).stdout().isEmpty());
    }

    @Test
    void aDeniedPodReachesNothingWhileAnUnfencedOneDoesAgainstMockApiServer() throws Exception {
        try (LoopbackServer server = new LoopbackServer()) {
            String probe = "exec 3<>/dev/tcp/127.0.0.1/" + server.port() + " && echo connected";
            Run fenced = run(ExecRequest.of("bash", "-c", probe));
            Run unfenced = new UnfencedPod(cluster).run(List.of("bash", "-c", probe));

            assertThat(fenced.result().exitCode()).isNotZero();
            assertThat(fenced.stdout()).isEmpty();
            // the control: the same probe from a pod that no NetworkPolicy selects gets through
            assertThat(unfenced.stdout()).isEqualTo("connected\n");
        }
    }

    @Test
    void execOnASuspendedSandboxIsRefusedAndWorksAgainAfterResumeAgainstMockApiServer() throws Exception {
        sandbox.suspend();
        assertThatThrownBy(() -> sandbox.exec(ExecRequest.of("true"), ExecOutput.DISCARD))
                .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.SANDBOX_NOT_RUNNING));

        sandbox.resume();
        assertThat(run(ExecRequest.of("echo", "back")).stdout()).isEqualTo("back\n");
    }
}
