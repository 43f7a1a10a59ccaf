package dev.paddock.driver.bwrap;

import static org.assertj.core.api.Assumptions.assumeThat;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/** A real driver on a throwaway data directory, plus helpers to run commands and clean everything up. */
final class TestSandboxes implements AutoCloseable {
    static final Fence FENCE = new Fence("test-host", 1);

    final Path dataDir;
    BwrapDriver driver;
    private final List<Sandbox> created = new ArrayList<>();

    TestSandboxes() throws IOException {
        // short path: the init socket path must fit in sun_path; /tmp is reachable by sandbox uids
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pdk");
        driver = new BwrapDriver(BwrapConfig.defaults(dataDir));
    }

    /** A driver that gives sandboxes disk images of their own; the test is skipped on a host without loop devices. */
    static TestSandboxes withDisks() throws IOException {
        TestSandboxes env = new TestSandboxes();
        Optional<String> problem = env.driver.diskQuotaProblem();
        if (problem.isPresent()) env.close();
        assumeThat(problem).as("loop devices on this host").isEmpty();
        return env;
    }

    /** A sandbox with a disk image of {@code bytes}. */
    Sandbox withDisk(long bytes) {
        return create(new SandboxSpec(newId(), "tenant", null, false, Limits.DEFAULT.withDisk(bytes), Map.of(), NetworkPolicy.NONE));
    }

    static String newId() {
        return "t-" + UUID.randomUUID().toString().substring(0, 12);
    }

    Sandbox create() {
        return create(SandboxSpec.defaults(newId(), "tenant"));
    }

    Sandbox create(SandboxSpec spec) {
        Sandbox s = driver.create(spec, FENCE);
        created.add(s);
        return s;
    }

    record Run(int exit, String out, String err, ExecResult result) {}

    static Run run(Sandbox s, ExecRequest r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        ExecOutput sink = new ExecOutput() {
            @Override public synchronized void stdout(byte[] d, int o, int l) { out.write(d, o, l); }
            @Override public synchronized void stderr(byte[] d, int o, int l) { err.write(d, o, l); }
        };
        try {
            ExecResult res = s.exec(r, sink).await();
            return new Run(res.exitCode(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), res);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static Run sh(Sandbox s, String line) {
        return run(s, ExecRequest.shell(line));
    }

    /**
     * Sandbox filesystems a test left mounted (an ended sandbox's files read after its end mount it again), and the
     * mount of the directory of all sandboxes that holds them.
     */
    static void unmountDisks(Path dataDir) throws IOException {
        Path sandboxes = dataDir.resolve("sandboxes");
        if (!Files.isDirectory(sandboxes)) return;
        try (Stream<Path> dirs = Files.list(sandboxes)) {
            for (Path d : dirs.toList()) {
                if (dev.paddock.driver.bwrap.disk.DiskQuotaAccess.isMountPoint(d)) {
                    try {
                        new ProcessBuilder("umount", "-l", d.toString()).inheritIO().start().waitFor();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
        if (Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().anyMatch(l -> l.split(" ")[4].equals(sandboxes.toString()))) {
            try {
                new ProcessBuilder("umount", "-l", sandboxes.toString()).inheritIO().start().waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() throws IOException {
        for (var ref : driver.list()) driver.destroy(ref);
        for (Sandbox s : created) {
            try { s.terminate(TerminationReason.USER_REQUEST); } catch (RuntimeException ignored) { }
        }
        driver.close();
        unmountDisks(dataDir);
        try (Stream<Path> tree = Files.walk(dataDir)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
