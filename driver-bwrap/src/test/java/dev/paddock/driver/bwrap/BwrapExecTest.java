package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.run;
import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.init.SandboxLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("bwrap")
class BwrapExecTest extends OneSandboxTest {

    @Test
    void runsArgvDirectlyWithoutAShell() {
        var r = run(sandbox, ExecRequest.of("echo", "a b", "$HOME"));
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo("a b $HOME\n");
    }

    @Test
    void runsShellLines() {
        assertThat(sh(sandbox, "x=4; echo $((x * 2)) | tr 8 9").out()).isEqualTo("9\n");
    }

    @Test
    void passesEnvOnTopOfTheMinimalEnvironment() {
        var r = run(sandbox, new ExecRequest(List.of("/bin/sh", "-c", "echo $GREETING:$HOME:$PATH"), Map.of("GREETING", "hi"), null, null, null));
        assertThat(r.out()).isEqualTo("hi:/workspace:" + SandboxLayout.PATH + "\n");
        assertThat(sh(sandbox, "env | cut -d= -f1 | sort | tr '\\n' ' '").out()).doesNotContain("JAVA_HOME", "MAVEN");
    }

    @Test
    void requestEnvReplacesTheSandboxesOwnAndItsPathFindsTheCommand() {
        sh(sandbox, "mkdir -p /workspace/tools && printf '#!/bin/sh\\necho found\\n' > /workspace/tools/only-here && chmod +x /workspace/tools/only-here");
        // init spawns without copying its own environment: an override must replace the entry, not add a second one
        var r = run(sandbox, new ExecRequest(List.of("/bin/sh", "-c", "env | grep -c '^HOME='; echo $HOME; only-here"),
                Map.of("HOME", "/tmp", "PATH", "/workspace/tools:" + SandboxLayout.PATH), null, null, null));
        assertThat(r.out()).as(r.err()).isEqualTo("1\n/tmp\nfound\n");
        // and the request's PATH is the one searched for argv[0] itself
        var direct = run(sandbox, new ExecRequest(List.of("only-here"), Map.of("PATH", "/workspace/tools"), null, null, null));
        assertThat(direct.out()).as(direct.err()).isEqualTo("found\n");
        assertThat(run(sandbox, ExecRequest.of("only-here")).exit()).isEqualTo(127);
        // nothing of a request stays in init's environment for the next command
        assertThat(sh(sandbox, "echo $HOME:$PATH").out()).isEqualTo("/workspace:" + SandboxLayout.PATH + "\n");
    }

    @Test
    void runsInTheWorkspaceOrTheGivenCwd() {
        assertThat(sh(sandbox, "pwd").out()).isEqualTo("/workspace\n");
        assertThat(run(sandbox, new ExecRequest(List.of("pwd"), null, "/tmp", null, null)).out()).isEqualTo("/tmp\n");
        var missing = run(sandbox, new ExecRequest(List.of("pwd"), null, "/nope", null, null));
        assertThat(missing.exit()).isEqualTo(127);
        assertThat(missing.err()).contains("cannot change directory to /nope");
    }

    @Test
    void initsConnectModeRelaysStdinToAUnixSocketInsideAndTheAnswerBack() {
        sandbox.startProcess(ExecRequest.of("python3", "-c", """
                import socket
                s = socket.socket(socket.AF_UNIX); s.bind('/tmp/echo.sock'); s.listen(1)
                c, _ = s.accept(); data = b''
                while chunk := c.recv(65536): data += chunk
                c.sendall(b'got ' + str(len(data)).encode() + b':' + data[:5]); c.close()
                """));
        // waits for the service to listen, sends all of stdin with an end, prints the whole answer
        var r = run(sandbox, ExecRequest.of(SandboxLayout.INIT_PATH, "connect", "/tmp/echo.sock", "10000").withStdin("hello world".repeat(10_000).getBytes(StandardCharsets.UTF_8)));
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("got 110000:hello");

        var none = run(sandbox, ExecRequest.of(SandboxLayout.INIT_PATH, "connect", "/tmp/nobody.sock", "100"));
        assertThat(none.exit()).isEqualTo(3);
        assertThat(none.err()).contains("nothing listens on /tmp/nobody.sock");
        var bad = run(sandbox, ExecRequest.of(SandboxLayout.INIT_PATH, "connect", "/tmp/nobody.sock", "soon"));
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("WAIT_MS must be 0 to 600000");
    }

    @Test
    void feedsStdin() {
        var r = run(sandbox, ExecRequest.of("wc", "-c").withStdin(new byte[300_000]));
        assertThat(r.out().trim()).isEqualTo("300000");
        assertThat(run(sandbox, ExecRequest.of("cat")).out()).isEmpty(); // no stdin = empty stdin
    }

    @Test
    void aNullStdinIsEndOfFileAtOnceAndTheHandlesStdinIsClosed() throws Exception {
        ExecHandle h = sandbox.exec(ExecRequest.of("cat"), ExecOutput.DISCARD);
        assertThatThrownBy(() -> h.stdin().write("late".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(java.io.IOException.class).hasMessageContaining("stdin is closed");
        ExecResult r = h.await(Duration.ofSeconds(20));
        assertThat(r).as("cat saw end of file and ended").isNotNull();
        assertThat(r.exitCode()).isZero();
    }

    @Test
    void reportsExitCodesAndSignals() {
        assertThat(sh(sandbox, "exit 42").exit()).isEqualTo(42);
        var killed = sh(sandbox, "kill -TERM $$");
        assertThat(killed.exit()).isEqualTo(128 + 15);
        assertThat(killed.result().signal()).isEqualTo(15);
        var missing = run(sandbox, ExecRequest.of("no-such-program"));
        assertThat(missing.exit()).isEqualTo(127);
        assertThat(missing.err()).contains("cannot run no-such-program");
    }

    @Test
    void keepsStdoutAndStderrApart() {
        var r = sh(sandbox, "echo out; echo err >&2; echo out2");
        assertThat(r.out()).isEqualTo("out\nout2\n");
        assertThat(r.err()).isEqualTo("err\n");
    }

    @Test
    void streamsOutputWhileTheCommandRuns() throws Exception {
        CountDownLatch first = new CountDownLatch(1);
        ExecHandle h = sandbox.exec(ExecRequest.shell("echo first; exec sleep 30"), new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { if (new String(d, o, l, StandardCharsets.UTF_8).contains("first")) first.countDown(); }
            @Override public void stderr(byte[] d, int o, int l) { }
        });
        assertThat(first.await(10, TimeUnit.SECONDS)).as("output arrives before the command ends").isTrue();
        assertThat(h.await(Duration.ZERO)).isNull();
        h.kill();
        assertThat(h.await().signal()).isEqualTo(9);
    }

    @Test
    void timeoutKillsTheCommandAndItsChildren() {
        var r = run(sandbox, ExecRequest.shell("sleep 1000 & while :; do :; done").withTimeout(Duration.ofMillis(500)));
        assertThat(r.result().timedOut()).isTrue();
        assertThat(r.result().signal()).isEqualTo(9);
        assertThat(sh(sandbox, "ps -eo comm | grep -c sleep || true").out().trim()).isEqualTo("0");
    }

    @Test
    void twoHundredExecsInARow() {
        for (int i = 0; i < 200; i++) {
            var r = run(sandbox, ExecRequest.of("echo", Integer.toString(i)));
            assertThat(r.out()).isEqualTo(i + "\n");
        }
    }

    @Test
    void refusesMalformedRequestsClearly() {
        assertThatThrownBy(() -> sandbox.exec(ExecRequest.of("echo", "a\0b"), ExecOutput.DISCARD))
                .isInstanceOf(PaddockException.class).hasMessageContaining("NUL");
        assertThatThrownBy(() -> sandbox.exec(new ExecRequest(List.of("true"), Map.of("A=B", "c"), null, null, null), ExecOutput.DISCARD))
                .isInstanceOf(PaddockException.class).extracting(e -> ((PaddockException) e).code()).isEqualTo("invalid_env");
        assertThatThrownBy(() -> sandbox.exec(new ExecRequest(List.of("true"), null, "relative", null, null), ExecOutput.DISCARD))
                .isInstanceOf(PaddockException.class).extracting(e -> ((PaddockException) e).code()).isEqualTo("invalid_cwd");
    }

    @Test
    void backgroundProcessesCanBeListedReadAndKilled() {
        var p = sandbox.startProcess(ExecRequest.shell("for i in 1 2 3; do echo line$i; done; echo oops >&2; exec sleep 1000"));
        assertThat(p.running()).isTrue();
        assertThat(p.argv()).containsExactly("/bin/sh", "-c", "for i in 1 2 3; do echo line$i; done; echo oops >&2; exec sleep 1000");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(new String(sandbox.processLogs(p.pid(), 0, 1000), StandardCharsets.UTF_8)).isEqualTo("line1\nline2\nline3\noops\n"));
        assertThat(new String(sandbox.processLogs(p.pid(), 6, 5), StandardCharsets.UTF_8)).isEqualTo("line2");
        assertThat(sandbox.processes()).anyMatch(x -> x.pid() == p.pid() && x.running());
        sandbox.signalProcess(p.pid(), 9);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                sandbox.processes().stream().anyMatch(x -> x.pid() == p.pid() && !x.running() && x.exitCode() == 137));
        assertThatThrownBy(() -> sandbox.processLogs(999_999, 0, 10)).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("not_found");
    }

    @Test
    void orphanedGrandchildrenAreReaped() {
        sh(sandbox, "for i in 1 2 3 4 5; do (sleep 0.1 &) ; done");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(sh(sandbox, "ps -eo stat | grep -c '^Z' || true").out().trim()).isEqualTo("0"));
    }

    @Test
    void closingTheHandleKillsTheCommand() throws Exception {
        ExecHandle h = sandbox.exec(ExecRequest.of("sleep", "1000"), ExecOutput.DISCARD);
        h.close();
        ExecResult r = h.await();
        assertThat(r.signal()).isEqualTo(9);
        assertThat(r.timedOut()).isFalse();
    }
}
