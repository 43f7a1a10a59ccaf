package dev.paddock.browser;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.host.Principal;
import dev.paddock.host.RuntimeHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The small JavaScript files Paddock puts into a browser sandbox's private {@code /tmp/paddock-browser}: the launch
 * defaults, the step-mode agent and its client, the script runner, and a {@code playwright}/{@code playwright-core}
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

    private static final Map<String, String> FILES = Map.of(
            "launch.mjs", DIR + "/launch.mjs",
            "agent.mjs", DIR + "/agent.mjs",
            "client.mjs", DIR + "/client.mjs",
            "runner.mjs", DIR + "/runner.mjs",
            "shim-index.mjs", DIR + "/node_modules/playwright-core/index.mjs");
    private static final String SHIM_PACKAGE = "{\"name\":\"playwright-core\",\"type\":\"module\",\"exports\":{\".\":\"./index.mjs\"}}";

    private BrowserAssets() {}

    /** Fails with a clear error when the host lacks what a browser sandbox needs. */
    static void checkInstalled() {
        for (Path p : List.of(PLAYWRIGHT_CORE, CHROMIUM, NODE)) {
            if (!Files.exists(p)) {
                throw new PaddockException(ErrorType.UNAVAILABLE, "browser_unavailable", p + " is missing on the host: "
                        + "install Debian chromium and nodejs and run scripts/install-browser (playwright-core into /usr/local/lib/paddock-browser)");
            }
        }
    }

    /** Writes the files into the sandbox (idempotent). */
    static void install(RuntimeHost host, Principal p, String id) {
        checkInstalled();
        run(host, p, id, "mkdir -p " + DIR + "/node_modules/playwright-core " + DIR + "/task && ln -sfn playwright-core "
                + DIR + "/node_modules/playwright && cat > " + DIR + "/node_modules/playwright-core/package.json", SHIM_PACKAGE.getBytes());
        for (var e : FILES.entrySet()) run(host, p, id, "cat > " + e.getValue(), resource(e.getKey()));
    }

    private static void run(RuntimeHost host, Principal p, String id, String line, byte[] stdin) {
        ExecRequest r = new ExecRequest(List.of("/bin/sh", "-c", line), Map.of(), "/", Duration.ofSeconds(30), stdin);
        ExecResult res = host.run(p, id, r, ExecOutput.DISCARD);
        if (res.exitCode() != 0) {
            throw new PaddockException(ErrorType.API, "browser_setup_failed", "could not prepare the browser files in sandbox " + id
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
