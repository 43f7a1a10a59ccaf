package dev.paddock.browser;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.host.RuntimeHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The small JavaScript files Paddock puts into a browser sandbox's private {@code /tmp/paddock-browser}: the launch
 * defaults, the step-mode agent, the script runner, and a {@code playwright}/{@code playwright-core}
 * package that re-exports the read-only install under {@code /usr/local/lib/paddock-browser} (visible inside
 * because the host's {@code /usr} is bound read-only) with those defaults.
 */
final class BrowserAssets {
    static final String DIR = "/tmp/paddock-browser";
    /** Where {@code scripts/install-browser} puts playwright-core; under /usr so every bwrap sandbox sees it read-only. */
    static final Path PLAYWRIGHT_CORE = Path.of("/usr/local/lib/paddock-browser/node_modules/playwright-core/index.mjs");
    /** The real binary: Debian's /usr/bin/chromium wrapper sources /etc/chromium.d, which the sandbox's reduced /etc lacks. */
    static final Path CHROMIUM = Path.of("/usr/lib/chromium/chromium");
    static final Path NODE = Path.of("/usr/bin/node");
    /** The step-mode agent's socket, in the sandbox's private /tmp. */
    static final String AGENT_SOCKET = DIR + "/agent.sock";
    /**
     * The bwrap driver's init binary, present in every bwrap sandbox: its {@code connect} mode relays one request
     * to the agent's socket and the answer back, for about a millisecond instead of an interpreter start.
     */
    static final String RELAY = "/dev/.paddock/init";

    private static final Map<String, String> FILES = Map.of(
            "launch.mjs", DIR + "/launch.mjs",
            "agent.mjs", DIR + "/agent.mjs",
            "runner.mjs", DIR + "/runner.mjs",
            "shim-index.mjs", DIR + "/node_modules/playwright-core/index.mjs");
    private static final String SHIM_PACKAGE = "{\"name\":\"playwright-core\",\"type\":\"module\",\"exports\":{\".\":\"./index.mjs\"}}";

    private BrowserAssets() {}

    /** Fails with a clear error when the host lacks what a browser sandbox needs. */
    static void checkInstalled() {
        for (Path p : List.of(PLAYWRIGHT_CORE, CHROMIUM, NODE)) {
            if (!Files.exists(p)) {
                throw new PaddockException(ErrorCode.BROWSER_UNAVAILABLE, p + " is missing on the host: "
                        + "install Debian chromium and nodejs and run scripts/install-browser (playwright-core into /usr/local/lib/paddock-browser)");
            }
        }
    }

    /** Runs one command to its end in one sandbox: through the host for a tenant's sandbox, directly for a pooled one. */
    interface Commands {
        ExecResult run(ExecRequest request, ExecOutput output);

        static Commands of(RuntimeHost host, Principal p, String id) {
            return (r, o) -> host.run(p, id, r, o);
        }

        static Commands of(Sandbox sandbox) {
            return (r, o) -> {
                try (ExecHandle h = sandbox.exec(r, o)) {
                    return h.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new PaddockException(ErrorCode.INTERRUPTED, "interrupted while running a browser command");
                }
            };
        }
    }

    /** Writes the files into the sandbox (idempotent). */
    static void install(Commands sandbox, String id) {
        checkInstalled();
        run(sandbox, id, "mkdir -p " + DIR + "/node_modules/playwright-core " + DIR + "/task && ln -sfn playwright-core "
                + DIR + "/node_modules/playwright && cat > " + DIR + "/node_modules/playwright-core/package.json", SHIM_PACKAGE.getBytes());
        for (var e : FILES.entrySet()) run(sandbox, id, "cat > " + e.getValue(), resource(e.getKey()));
    }

    /**
     * One request to the step-mode agent through the relay, waiting up to {@code connect} for the agent to listen.
     * The exec may take the action's {@code timeout} plus that wait plus a margin: the agent answers a timed-out
     * action itself, and the host kills the relay only when it does not.
     */
    static ExecRequest toAgent(byte[] request, Duration timeout, Duration connect) {
        return relay(request, connect, timeout.plus(connect).plusSeconds(10));
    }

    /**
     * A live view through the relay: the exec ends after exactly {@code length}, the wait for the agent included,
     * so a cast never outlasts what was asked for (killing the relay closes the agent's connection, ending the cast).
     */
    static ExecRequest castFromAgent(byte[] request, Duration length, Duration connect) {
        return relay(request, connect.compareTo(length) < 0 ? connect : length, length);
    }

    private static ExecRequest relay(byte[] request, Duration connect, Duration limit) {
        byte[] line = Arrays.copyOf(request, request.length + 1);
        line[request.length] = '\n'; // the agent reads one line
        return new ExecRequest(List.of(RELAY, "connect", AGENT_SOCKET, Long.toString(connect.toMillis())), Map.of(), "/", limit, line);
    }

    private static void run(Commands sandbox, String id, String line, byte[] stdin) {
        ExecRequest r = new ExecRequest(List.of("/bin/sh", "-c", line), Map.of(), "/", Duration.ofSeconds(30), stdin);
        ExecResult res = sandbox.run(r, ExecOutput.DISCARD);
        if (res.exitCode() != 0) {
            throw new PaddockException(ErrorCode.BROWSER_SETUP_FAILED, "could not prepare the browser files in sandbox " + id
                    + " (exit " + res.exitCode() + "); is /tmp writable and the sandbox running?");
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = BrowserAssets.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing resource " + name);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
