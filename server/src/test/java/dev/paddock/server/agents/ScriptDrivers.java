package dev.paddock.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/** Runs a conformance plan through the TypeScript SDK (node) or the Python SDK, each a process of its own. */
final class ScriptDrivers {
    private static final long TIMEOUT_MINUTES = 5;

    private ScriptDrivers() {}

    static JsonNode typescript(Path plan) throws IOException, InterruptedException {
        Path sdk = NodeSdk.dir();
        Path script = copy("/agents/sdk-driver.mjs", sdk.resolve("sdk-driver.mjs"));
        return run(new ProcessBuilder("node", script.toString(), plan.toString()).directory(sdk.toFile()), plan);
    }

    static JsonNode python(Path plan) throws IOException, InterruptedException {
        Path sdk = PythonSdk.dir();
        Path script = copy("/agents/sdk_driver.py", plan.resolveSibling("sdk_driver.py"));
        ProcessBuilder pb = new ProcessBuilder("python3", script.toString(), plan.toString());
        pb.environment().put("PYTHONPATH", sdk.toString());
        return run(pb, plan);
    }

    private static Path copy(String resource, Path to) throws IOException {
        try (InputStream in = ScriptDrivers.class.getResourceAsStream(resource)) {
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
        }
        return to;
    }

    private static JsonNode run(ProcessBuilder pb, Path plan) throws IOException, InterruptedException {
        Path log = plan.resolveSibling("driver.log");
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES);
        if (!done) p.destroyForcibly().waitFor();
        assertThat(done && p.exitValue() == 0).as("driver %s ended well; its output:%n%s", List.copyOf(pb.command()), Files.readString(log)).isTrue();
        return Rest.JSON.readTree(plan.resolveSibling("result.json").toFile());
    }
}
