package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code paddock sandbox shell} and {@code paddock sandbox ports} against a real bubblewrap sandbox: piped input,
 * and a real pty (script(1)) on which the CLI puts the local terminal in raw mode and gives it back as it was.
 */
@Tag("bwrap")
class CliShellAndPortsTest {
    static BwrapServer server;
    static Cli cli;
    static String sandbox;

    @BeforeAll
    static void start() throws Exception {
        server = new BwrapServer("pcs", Map.of("warm_pool_size", "0"));
        cli = server.cli();
        Cli.Result r = cli.run("sandbox", "create");
        assertThat(r.code()).as(r.toString()).isZero();
        sandbox = r.out().trim();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
    }

    @Test
    void aShellReadsPipedInputAndExitsWithTheCommandsCode() {
        Cli.Result r = cli.runWithStdin("hello\n".getBytes(StandardCharsets.UTF_8),
                "sandbox", "shell", sandbox, "--", "sh", "-c", "read x; echo got-$x; exit 4");
        assertThat(r.code()).as(r.toString()).isEqualTo(4);
        assertThat(r.out()).contains("got-hello");
    }

    @Test
    void onARealTerminalTheShellIsRawAndTheTerminalIsRestoredAfterwards() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String inner = "'" + java + "' -cp '" + System.getProperty("java.class.path") + "' dev.paddock.app.Main sandbox shell " + sandbox
                + " -- sh -c 'stty -a | grep -o -- \" -\\?icanon\"; read x; echo got-$x; exit 5'; echo local-code=$?; stty -a";
        ProcessBuilder pb = new ProcessBuilder("script", "-qec", inner, "/dev/null").redirectErrorStream(true);
        pb.environment().put("PADDOCK_DATA_DIR", server.dataDir.toString());
        Process p = pb.start();
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (InputStream in = p.getInputStream()) {
                in.transferTo(new OutputStream() {
                    @Override public void write(int b) { synchronized (seen) { seen.write(b); } }
                    @Override public void write(byte[] b, int o, int l) { synchronized (seen) { seen.write(b, o, l); } }
                });
            } catch (Exception ignored) {
                // the process ended
            }
        });
        // the sandbox's terminal is cooked (icanon) while the local one is raw: type a line once the command runs
        await().atMost(Duration.ofSeconds(60)).until(() -> text(seen).contains("icanon"));
        p.getOutputStream().write("hello\r".getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().flush();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(text(seen)).isTrue();
        reader.join(5000);
        String out = text(seen);
        assertThat(out).contains("got-hello").contains("local-code=5");
        // raw: only the sandbox's terminal echoes the typed line (a cooked local terminal would echo it a second time)
        assertThat(out.split("hello", -1).length - 1).as(out).isEqualTo(2);
        String after = out.substring(out.indexOf("local-code=5"));
        assertThat(List.of(after.split("\\s+"))).as("the local terminal is cooked and echoes again: %s", after).contains("icanon", "echo");
    }

    @Test
    void portsAreOpenedListedAndClosed() {
        Cli.Result open = cli.run("sandbox", "ports", "open", sandbox, "8000");
        assertThat(open.code()).as(open.toString()).isZero();
        assertThat(open.out().trim()).startsWith(server.app.url() + "/v1/sandboxes/" + sandbox + "/ports/8000/t/prt_");
        Cli.Result ls = cli.run("sandbox", "ports", "ls", sandbox);
        assertThat(ls.out()).contains("8000").contains(open.out().trim());
        assertThat(cli.run("sandbox", "ports", "close", sandbox, "8000").code()).isZero();
        assertThat(cli.run("sandbox", "ports", "ls", sandbox).out()).contains("no open ports");
        Cli.Result bad = cli.run("sandbox", "ports", "open", sandbox, "0");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).contains("invalid_port");
    }

    private static String text(ByteArrayOutputStream b) {
        synchronized (b) {
            return b.toString(StandardCharsets.UTF_8);
        }
    }
}
