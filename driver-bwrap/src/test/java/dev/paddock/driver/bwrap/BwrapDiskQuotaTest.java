package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.driver.bwrap.disk.DiskQuotaAccess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** limits.disk is a filesystem of the sandbox's own: the kernel says ENOSPC past it, for workspace and outputs together. */
class BwrapDiskQuotaTest {
    private static final long DISK = 64L << 20;
    private TestSandboxes env;

    @BeforeEach
    void start() throws Exception {
        env = TestSandboxes.withDisks();
    }

    @AfterEach
    void stop() throws Exception {
        env.close();
    }

    private Sandbox withDisk(long bytes) {
        return env.withDisk(bytes);
    }

    @Test
    void writesPastTheLimitFailWithNoSpaceInWorkspaceAndOutputsTogether() {
        Sandbox s = withDisk(DISK);
        var big = sh(s, "dd if=/dev/zero of=/workspace/big bs=1M count=100 2>&1; echo exit=$?");
        assertThat(big.out()).contains("No space left on device").doesNotContain("exit=0");
        // the outputs share the same filesystem: nothing left there either
        var out = sh(s, "dd if=/dev/zero of=/mnt/session/outputs/more bs=1M count=8 2>&1; echo exit=$?");
        assertThat(out.out()).contains("No space left on device");
        // after freeing space the sandbox can write again
        assertThat(sh(s, "rm /workspace/big && echo ok > /workspace/small && cat /workspace/small").out()).isEqualTo("ok\n");
        assertThat(sh(s, "df -k /workspace | tail -1 | awk '{print $2}'").out().trim()).satisfies(kb ->
                assertThat(Long.parseLong(kb)).isLessThanOrEqualTo(DISK / 1024));
        // the filesystem's own lost+found is not there, and the workspace belongs to the sandbox's uid
        assertThat(sh(s, "ls -a /workspace; id -u; stat -c %u /workspace").out()).doesNotContain("lost+found");
    }

    @Test
    void theImageIsSparseAndLostFoundIsRemoved() throws Exception {
        Sandbox s = withDisk(1L << 30);
        Path dir = env.dataDir.resolve("sandboxes").resolve(s.ref().sandboxId());
        assertThat(DiskQuotaAccess.isMountPoint(dir)).isTrue();
        assertThat(dir.resolve("lost+found")).doesNotExist();
        Path image = env.dataDir.resolve("disks").resolve(s.ref().sandboxId() + ".img");
        assertThat(Files.size(image)).isEqualTo(1L << 30);
        Process du = new ProcessBuilder("du", "-k", image.toString()).start();
        long kib = Long.parseLong(new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\\s+")[0]);
        assertThat(kib).as("KiB on disk of an empty 1 GiB image").isLessThan(16 * 1024);
        assertThat(Files.getPosixFilePermissions(env.dataDir.resolve("disks"))).hasSize(3); // rwx for root only
    }

    @Test
    void anEndedSandboxsFilesStayReadableAlsoAfterTheMountWentAwayAndPurgeRemovesEverything() throws Exception {
        Sandbox s = withDisk(DISK);
        String id = s.ref().sandboxId();
        sh(s, "echo kept > /workspace/a.txt; echo out > /mnt/session/outputs/o.txt");
        s.terminate(TerminationReason.USER_REQUEST);
        Path dir = env.dataDir.resolve("sandboxes").resolve(id);
        assertThat(DiskQuotaAccess.isMountPoint(dir)).as("unmounted at the end").isFalse();
        // as after a host reboot: nothing mounted; reading the files mounts the image again
        Workspace ws = env.driver.workspace(s.ref()).orElseThrow();
        assertThat(new String(ws.read("a.txt").readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("kept\n");
        assertThat(new String(env.driver.outputs(s.ref()).orElseThrow().read("o.txt").readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("out\n");
        env.driver.purge(s.ref());
        assertThat(dir).doesNotExist();
        assertThat(env.dataDir.resolve("disks").resolve(id + ".img")).doesNotExist();
        assertThat(env.driver.workspace(s.ref())).isEmpty();
        env.driver.purge(s.ref()); // idempotent
    }

    /** Each mounted image holds a loop device: reading many ended sandboxes must not keep them all mounted. */
    @Test
    void onlyTheMostRecentlyReadEndedSandboxesStayMounted() throws Exception {
        env.driver.endedMounts = new EndedMounts(2);
        List<Sandbox> ended = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Sandbox s = withDisk(DISK);
            sh(s, "echo " + i + " > /workspace/n.txt");
            s.terminate(TerminationReason.USER_REQUEST);
            ended.add(s);
        }
        for (Sandbox s : ended) env.driver.workspace(s.ref()).orElseThrow();
        assertThat(ended).extracting(s -> DiskQuotaAccess.isMountPoint(sandboxDir(s)))
                .as("the least recently read is unmounted").containsExactly(false, true, true);
        // read again, it is mounted again and the next oldest goes
        Workspace first = env.driver.workspace(ended.getFirst().ref()).orElseThrow();
        assertThat(new String(first.read("n.txt").readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("0\n");
        assertThat(ended).extracting(s -> DiskQuotaAccess.isMountPoint(sandboxDir(s))).containsExactly(true, false, true);
        // a running sandbox's own mount is never among them
        Sandbox running = withDisk(DISK);
        env.driver.outputs(ended.get(1).ref()).orElseThrow();
        assertThat(DiskQuotaAccess.isMountPoint(sandboxDir(running))).isTrue();
        // closing the driver unmounts what it mounted for reads and leaves running sandboxes mounted
        env.driver.close();
        assertThat(ended).extracting(s -> DiskQuotaAccess.isMountPoint(sandboxDir(s))).containsOnly(false);
        assertThat(DiskQuotaAccess.isMountPoint(sandboxDir(running))).isTrue();
    }

    private Path sandboxDir(Sandbox s) {
        return env.dataDir.resolve("sandboxes").resolve(s.ref().sandboxId());
    }

    @Test
    void aReattachedSandboxKeepsItsLimit() throws Exception {
        Sandbox s = withDisk(DISK);
        env.driver.close();
        env.driver = new BwrapDriver(BwrapConfig.defaults(env.dataDir));
        Sandbox again = env.driver.attach(s.ref()).orElseThrow();
        assertThat(sh(again, "dd if=/dev/zero of=/workspace/big bs=1M count=100 2>&1").out()).contains("No space left on device");
    }

    @Test
    void withoutALimitThereIsNoImage() {
        Sandbox s = env.create();
        assertThat(env.dataDir.resolve("disks").resolve(s.ref().sandboxId() + ".img")).doesNotExist();
        assertThat(DiskQuotaAccess.isMountPoint(env.dataDir.resolve("sandboxes").resolve(s.ref().sandboxId()))).isFalse();
    }
}
