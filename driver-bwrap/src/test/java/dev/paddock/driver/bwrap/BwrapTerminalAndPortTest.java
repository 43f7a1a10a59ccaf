package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.TerminalHandle;
import dev.paddock.core.spi.TerminalRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Terminals (a pty allocated by init inside the sandbox) and the relay to a port on the sandbox's loopback. */
@Tag("bwrap")
class BwrapTerminalAndPortTest extends OneSandboxTest {

    /** Collects what a stream wrote, for polling. */
    static final class Collected implements ExecOutput {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        @Override public synchronized void stdout(byte[] d, int o, int l) { out.write(d, o, l); }
        @Override public synchronized void stderr(byte[] d, int o, int l) { out.write(d, o, l); }
        synchronized String text() { return out.toString(StandardCharsets.UTF_8); }
    }

    @Test
    void bashOnATerminalEchoesResizesAndReportsItsExitCode() throws Exception {
        Collected out = new Collected();
        TerminalHandle t = sandbox.openTerminal(new TerminalRequest(List.of("bash", "--norc", "-i"), Map.of("PS1", "$ "), null, 24, 80), out);
        t.stdin().write("tty; echo hello-$((6*7))\n".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(10)).until(() -> out.text().contains("hello-42"));
        assertThat(out.text()).contains("/dev/pts/");
        t.stdin().write("stty size\n".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(10)).until(() -> out.text().contains("24 80"));
        t.resize(40, 132);
        t.stdin().write("stty size\n".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(10)).until(() -> out.text().contains("40 132"));
        t.stdin().write("exit 7\n".getBytes(StandardCharsets.UTF_8));
        ExecResult r = t.await(Duration.ofSeconds(10));
        assertThat(r).isNotNull();
        assertThat(r.exitCode()).isEqualTo(7);
    }

    @Test
    void theTerminalIsTheCommandsControllingTerminal() throws Exception {
        Collected out = new Collected();
        TerminalHandle t = sandbox.openTerminal(new TerminalRequest(List.of("sh", "-c", "echo ready; sleep 30; echo not-interrupted"), Map.of(), null, 24, 80), out);
        await().atMost(Duration.ofSeconds(10)).until(() -> out.text().contains("ready")); // the terminal is its controlling terminal by now
        t.stdin().write(new byte[] {3}); // ^C: the line discipline signals the foreground group
        ExecResult r = t.await(Duration.ofSeconds(20));
        assertThat(r).isNotNull();
        assertThat(r.exitCode()).isEqualTo(128 + 2);
        assertThat(out.text()).doesNotContain("not-interrupted");
    }

    @Test
    void aPortOnTheSandboxsLoopbackIsReachedThroughTheRelay() throws Exception {
        sandbox.startProcess(ExecRequest.shell("mkdir -p /tmp/site && echo served-from-inside > /tmp/site/index.html && cd /tmp/site && exec python3 -m http.server 8123 --bind 127.0.0.1"));
        await().atMost(Duration.ofSeconds(15)).until(() -> sh(sandbox, "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 8123))' && echo up").out().contains("up"));
        Collected out = new Collected();
        ExecHandle h = sandbox.connectPort(8123, out);
        h.stdin().write("GET /index.html HTTP/1.0\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        ExecResult r = h.await(Duration.ofSeconds(10));
        assertThat(r).isNotNull();
        assertThat(r.exitCode()).isZero();
        assertThat(out.text()).startsWith("HTTP/1.0 200").contains("served-from-inside");
    }

    @Test
    void aPortWithNothingListeningEndsWithItsOwnExitCode() throws Exception {
        Collected out = new Collected();
        ExecHandle h = sandbox.connectPort(8999, out);
        ExecResult r = h.await(Duration.ofSeconds(10));
        assertThat(r).isNotNull();
        assertThat(r.exitCode()).isEqualTo(Sandbox.PORT_NOT_LISTENING);
        assertThat(out.text()).contains("nothing listens on 127.0.0.1:8999");
    }
}
