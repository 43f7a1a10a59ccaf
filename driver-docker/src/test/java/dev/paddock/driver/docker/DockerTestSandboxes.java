package dev.paddock.driver.docker;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.testing.Prerequisites;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A real Docker driver (the engine at $DOCKER_HOST) on a throwaway data directory; closing it removes every
 * container it made and the directory.
 */
final class DockerTestSandboxes implements AutoCloseable {
    static final Fence FENCE = new Fence("test-host", 1);

    final Path dataDir;
    final DockerDriver driver;

    DockerTestSandboxes() throws IOException {
        this(DockerConfig.DEFAULT_RUNTIME);
    }

    DockerTestSandboxes(String runtime) throws IOException {
        DockerConfig probe = DockerConfig.defaults(Path.of("/tmp")).withRuntime(runtime);
        List<String> problems = DockerDriver.checkHost(probe);
        Prerequisites.require(problems.isEmpty(), () -> "the docker driver cannot run here: " + String.join("; ", problems));
        // short path: the init socket path must fit in sun_path
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pdd");
        driver = new DockerDriver(DockerConfig.defaults(dataDir).withRuntime(runtime));
    }

    static String newId() {
        return "t-" + UUID.randomUUID().toString().substring(0, 12);
    }

    Sandbox create() {
        return create(SandboxSpec.defaults(newId(), "tenant"));
    }

    Sandbox create(SandboxSpec spec) {
        return driver.create(spec, FENCE);
    }

    record Run(int exit, String out, String err, ExecResult result) {}

    static Run run(Sandbox s, ExecRequest r) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        ExecOutput sink = new ExecOutput() {
            @Override public synchronized void stdout(byte[] d, int o, int l) { out.write(d, o, l); }
            @Override public synchronized void stderr(byte[] d, int o, int l) { err.write(d, o, l); }
        };
        ExecResult res = s.exec(r, sink).await();
        return new Run(res.exitCode(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), res);
    }

    static Run sh(Sandbox s, String line) throws InterruptedException {
        return run(s, ExecRequest.shell(line));
    }

    @Override
    public void close() throws IOException {
        for (SandboxRef ref : driver.list()) driver.destroy(ref);
        driver.close();
        try (Stream<Path> tree = Files.walk(dataDir)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
