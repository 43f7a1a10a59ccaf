package dev.paddock.server.agents;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The official Python SDK ({@code anthropic}), installed with pip into a directory the tests own
 * ({@code target/python-sdk}, or {@code PADDOCK_PYTHON_SDK_DIR}). PyPI itself is out of reach here: pip finds the
 * package only where the machine's pip is set up with a local index that has it. Where it cannot be installed the
 * caller is skipped, saying so.
 */
final class PythonSdk {
    static final String PACKAGE = "anthropic==1.13.0";

    private PythonSdk() {}

    static synchronized Path dir() throws IOException, InterruptedException {
        String configured = System.getenv("PADDOCK_PYTHON_SDK_DIR");
        Path dir = configured == null || configured.isBlank() ? Path.of("target", "python-sdk").toAbsolutePath() : Path.of(configured);
        if (Files.isDirectory(dir.resolve("anthropic"))) return dir;
        Files.createDirectories(dir);
        Path log = dir.resolveSibling(dir.getFileName() + "-pip-install.log");
        // no retries: an index that cannot be reached fails at once rather than after minutes
        Process pip = new ProcessBuilder("python3", "-m", "pip", "install", "--quiet", "--retries", "0", "--timeout", "15",
                "--target", dir.toString(), PACKAGE).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = pip.waitFor(5, TimeUnit.MINUTES);
        if (!done) pip.destroyForcibly().waitFor();
        assumeTrue(done && pip.exitValue() == 0 && Files.isDirectory(dir.resolve("anthropic")),
                "the Python SDK " + PACKAGE + " cannot be installed on this machine; see " + log);
        return dir;
    }
}
