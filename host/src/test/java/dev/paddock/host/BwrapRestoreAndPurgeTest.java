package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** On real bwrap sandboxes, with and without a disk image: a restore is seen inside the sandbox, and purge leaves nothing. */
@Tag("bwrap")
class BwrapRestoreAndPurgeTest {
    final BwrapDataDir dir = new BwrapDataDir("pdp"); // a new one per test: JUnit makes an instance per test
    final Path dataDir = dir.path;
    final Store store = dir.store;
    RuntimeHost host;

    @AfterEach
    void tearDown() throws Exception {
        if (host != null) host.close();
        dir.close();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aRestoredTreeIsWhatTheSandboxSeesAndPurgeLeavesNothingOfTheSandbox(boolean withDisk) throws Exception {
        BwrapDriver bwrap = new BwrapDriver(BwrapConfig.defaults(dataDir));
        if (withDisk) org.junit.jupiter.api.Assumptions.assumeTrue(bwrap.diskQuotaProblem().isEmpty(), "loop devices on this host");
        host = new RuntimeHost(HostFixture.config(dataDir, "bwrap").withDisk(withDisk ? 64L << 20 : 0, 0), store, List.of(bwrap), Clock.systemUTC());
        host.start();
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        String id = sbx.id();
        assertThat(sh(id, "mkdir -p /workspace/src && echo v1 > /workspace/src/a.txt && truncate -s 1G /workspace/hole && echo ok")).isEqualTo("ok\n");
        CheckpointRecord cp = host.checkpoint(ALICE, id);
        assertThat(cp.sizeBytes()).isLessThan(64 * 1024);
        assertThat(sh(id, "echo v2 > /workspace/src/a.txt && rm /workspace/hole && echo new > /workspace/later.txt && echo ok")).isEqualTo("ok\n");
        host.workspace(ALICE, id).write("uploaded.txt", new ByteArrayInputStream("up".getBytes(StandardCharsets.UTF_8)));

        host.restore(ALICE, id, cp.id());
        assertThat(sh(id, "cat /workspace/src/a.txt; ls /workspace; stat -c %s /workspace/hole; ls -a /workspace | grep -c paddock"))
                .isEqualTo("v1\nhole\nsrc\n1073741824\n0\n");
        assertThat(sh(id, "du -k /workspace/hole | cut -f1").trim()).satisfies(kib -> assertThat(Long.parseLong(kib)).isLessThan(1024));
        host.workspace(ALICE, id).write("out.txt", new ByteArrayInputStream("x".getBytes(StandardCharsets.UTF_8)));

        host.delete(ALICE, id);
        host.purge(ALICE, id);
        try (Stream<Path> all = Files.walk(dataDir)) {
            assertThat(all.filter(p -> p.toString().contains(id) || p.toString().contains(cp.id())).toList()).isEmpty();
        }
        try (Stream<Path> left = Files.list(dataDir.resolve("sandboxes"))) {
            assertThat(left.toList()).isEmpty();
        }
        try (Stream<Path> left = Files.list(dataDir.resolve("run"))) {
            assertThat(left.toList()).isEmpty();
        }
        try (Stream<Path> claims = Files.list(dataDir.resolve("uids"))) {
            assertThat(claims.filter(p -> readQuietly(p).equals(id)).toList()).as("uid claims").isEmpty();
        }
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private String sh(String id, String script) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        host.run(ALICE, id, ExecRequest.shell(script), new ExecOutput() {
            @Override
            public void stdout(byte[] data, int offset, int length) {
                synchronized (out) { out.write(data, offset, length); }
            }

            @Override
            public void stderr(byte[] data, int offset, int length) {
                stdout(data, offset, length);
            }
        });
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
